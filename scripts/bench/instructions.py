#!/usr/bin/env python3
"""instructions.sh's report: per tile, each server's instructions and L1 misses by object, from
callgrind's output (exclusive costs: a function's own, not its callees'), and PackFS's ratio to
bare_db. usage: instructions.py LIST PACKFS_OUT BARE_DB_OUT"""
import collections
import os
import re
import sys

GROUPS = (("sqlite", "libsqlite3"), ("libc", "libc.so"), ("libdeflate", "libdeflate"), ("libfuse", "libfuse3"))


def group(obj, own):
    if obj and own and os.path.basename(obj) == os.path.basename(own):
        return "own"
    for name, part in GROUPS:
        if obj and part in obj:
            return name
    return "other"


def load(path):
    """Exclusive Ir, I1mr and D1mr + D1mw per group ("own": the program's, as its command names it)."""
    names = {"ob": {}, "fn": {}}
    events, obj, skip, own = None, None, False, None
    costs = collections.defaultdict(lambda: [0, 0, 0])
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("cmd:"):
            own = line.split()[1]
            continue
        if line.startswith("events:"):
            events = line.split()[1:]
            continue
        m = re.match(r"^(c?ob|c?fn|c?fi|c?fl|fe|calls)=(.*)$", line)
        if m:
            kind, value = m.groups()
            if kind == "calls":
                skip = True  # the next line is the call's inclusive cost: not this function's own
                continue
            table = names["ob"] if kind in ("ob", "cob") else names["fn"] if kind in ("fn", "cfn") else None
            if table is None:
                continue
            ref = re.match(r"\((\d+)\)(?: (.*))?", value)
            name = value
            if ref:
                if ref.group(2) is not None:
                    table[ref.group(1)] = ref.group(2)
                name = table.get(ref.group(1))
            if kind == "ob":
                obj = name
            continue
        if not line or not (line[0].isdigit() or line[0] in "+-*"):
            continue
        if skip:
            skip = False
            continue
        values = dict(zip(events, [int(v) for v in line.split()[1:]]))
        cost = costs[group(obj, own)]
        cost[0] += values.get("Ir", 0)
        cost[1] += values.get("I1mr", 0)
        cost[2] += values.get("D1mr", 0) + values.get("D1mw", 0)
    return costs


def main():
    tiles = sum(1 for _ in open(sys.argv[1]))
    servers = [("PackFS", load(sys.argv[2])), ("bare_db", load(sys.argv[3]))]
    order = ["own", "sqlite", "libc", "libdeflate", "libfuse", "other"]
    print("| server | instructions | L1i misses | L1d misses | " + " | ".join(f"{g} (Ir / L1i)" for g in order) + " |")
    print("| --- " * (4 + len(order)) + "|")
    totals = {}
    for name, costs in servers:
        total = [sum(c[i] for c in costs.values()) / tiles for i in range(3)]
        totals[name] = total
        parts = " | ".join(f"{costs[g][0] / tiles:,.0f} / {costs[g][1] / tiles:,.0f}" for g in order)
        print(f"| {name} | {total[0]:,.0f} | {total[1]:,.0f} | {total[2]:,.0f} | {parts} |")
    p, b = totals["PackFS"], totals["bare_db"]
    print(f"PackFS / bare_db: instructions {p[0] / b[0]:.3f}, L1i misses {p[1] / b[1]:.2f}, L1d misses {p[2] / b[2]:.2f}; "
          f"PackFS's extra per tile: {p[0] - b[0]:,.0f} instructions, {p[1] - b[1]:,.0f} L1i and {p[2] - b[2]:,.0f} L1d misses")


if __name__ == "__main__":
    main()
