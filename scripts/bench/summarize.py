#!/usr/bin/env python3
"""all.sh's arithmetic: reads the results file the benchmark scripts appended to ("NAME VALUE", one
figure of one round per line; "# NAME VALUE" lines are the run's parameters) and prints, in
Markdown, each figure's minimum, median and maximum over rounds and whether its target holds, then
the absolute figures behind the ratios. Usage: summarize.py RESULTS"""
import statistics, sys

# (figure, label, baseline, unit, target: (operator, limit, statistic judged) or None for "report").
# Ratios against a baseline measured in the same round are judged on the median over rounds, as
# read.sh prints them; the download on its minimum (the target is "in every round"); limits (peak
# memory, seconds, size) on the maximum: every round must stay under them.
TARGETS = [
    ("read.cold.mount_files", "cold reads, mount / files (read.sh, {threads} threads, {read_tiles} tiles)",
     "ordinary files, same disk", "ratio", (">=", 0.7, "median")),
    ("read.cold.mount_bare", "cold reads, mount / bare FUSE cold", "bare_fuse.c, cold (fresh process, caches dropped)",
     "ratio", (">=", 0.5, "median")),
    ("read.cold.mount_floor", "cold reads, mount / the format's floor cold",
     "bare_db.c: SQLite statement + inflate per tile, libfuse's loop, same threads", "ratio", None),
    ("read.warm.mount_bare", "warm reads, mount / bare FUSE (one figure per warm pass)", "bare_fuse.c, warm",
     "ratio", (">=", 0.98, "median")),
    ("download.ratio", "download, curl seconds / PackFS seconds (download.sh, {download_tiles} tiles)",
     "curl --parallel --parallel-max 20, same URLs", "ratio", (">=", 1.1, "min")),
    ("load.threads_8_1", "cold reads through the mount, 8 reader threads / 1 (load.sh, {load_tiles} tiles)",
     "1 reader thread, same round", "x", (">=", 1.6, "median")),
    ("load.memory_mb", "daemon peak memory (VmHWM), 8 cold readers and a download at once", "(absolute)", "MB",
     ("<=", 40, "max")),
    ("load.readdir_ratio", "`ls` of a pack's root while it downloads / idle (medians)", "the same `ls`, pack idle",
     "x", None),
    ("load.readdir_max_ms", "`ls` of a pack's root while it downloads: slowest", "(absolute)", "ms", None),
    ("walk.mount_s", "{big_tiles}-tile pack: `packfs mount` until the pack is visible (caches dropped)",
     "(absolute)", "s", ("<", 0.5, "max")),
    ("walk.ls_s", "{big_tiles}: `ls` of one column ({column_tiles} tiles), fresh mount, caches dropped", "(absolute)", "s",
     ("<", 0.2, "max")),
    ("walk.du_s", "{big_tiles}: `du -s` of the pack, fresh mount, caches dropped", "(absolute; `find` below)", "s",
     ("<", 5, "max")),
    ("walk.find_s", "{big_tiles}: `find <pack> -type f \\| wc -l`, fresh mount, caches dropped", "(absolute)", "s",
     ("<", 5, "max")),
    ("walk.lsR_s", "{big_tiles}: `ls -lR <pack> >/dev/null`, fresh mount, caches dropped", "(absolute)", "s",
     ("<", 5, "max")),
    ("walk.rm_s", "{big_tiles}: removal of the pack (`rm packs/big.region`), fresh mount", "(absolute)", "s",
     ("<", 10, "max")),
    ("walk.bare_du_s", "{big_tiles}: `du -s` of the same tree on bare_fuse.c --tree (the kernel's floor), fresh process",
     "(absolute)", "s", None),
    ("walk.bare_find_s", "{big_tiles}: `find -type f \\| wc -l` of the same tree on bare_fuse.c --tree, fresh process",
     "(absolute)", "s", None),
    ("walk.bare_lsR_s", "{big_tiles}: `ls -lR` of the same tree on bare_fuse.c --tree, fresh process", "(absolute)", "s", None),
    ("download.db_mbtiles", "database size / MBTiles of the same tiles (download.sh's database)",
     "MBTiles: standard schema, tiles gzipped as served, VACUUMed", "ratio", ("<=", 1.05, "max")),
]

# The absolute figures the ratios are made of, and others the scripts record (no targets).
REFERENCES = [
    ("read.cold.files_rate", "cold reads, ordinary files", "tiles/s"),
    ("read.cold.mount_rate", "cold reads, mount", "tiles/s"),
    ("read.cold.bare_rate", "cold reads, bare FUSE", "tiles/s"),
    ("read.cold.bare_files", "cold reads, bare FUSE / files", "ratio"),
    ("read.cold.floor_rate", "cold reads, the format's floor (bare_db.c)", "tiles/s"),
    ("read.cold.floor_files", "cold reads, the format's floor / files", "ratio"),
    ("read.warm.files_rate", "warm reads, ordinary files", "tiles/s"),
    ("read.warm.mount_rate", "warm reads, mount", "tiles/s"),
    ("read.warm.bare_rate", "warm reads, bare FUSE", "tiles/s"),
    ("read.warm.mount_files", "warm reads, mount / files", "ratio"),
    ("read.warm.bare_files", "warm reads, bare FUSE / files", "ratio"),
    ("read.cold.daemon_mb", "daemon peak memory after a cold pass (read.sh)", "MB"),
    ("read.warm.daemon_mb", "daemon peak memory after the warm passes (read.sh)", "MB"),
    ("load.threads_1_rate", "cold reads through the mount, 1 thread (load.sh)", "tiles/s"),
    ("load.threads_8_rate", "cold reads through the mount, 8 threads (load.sh)", "tiles/s"),
    ("load.memory_readers_rate", "cold reads, 8 threads, beside a download", "tiles/s"),
    ("load.readdir_busy_ms", "`ls` of the pack root during its download, median", "ms"),
    ("load.readdir_idle_ms", "`ls` of the pack root, idle, median", "ms"),
    ("load.readdir_idle_max_ms", "`ls` of the pack root, idle, slowest", "ms"),
    ("read.cold.mount_ring_rate", "cold reads, mount over io_uring", "tiles/s"),
    ("read.cold.bare_ring_rate", "cold reads, bare FUSE over io_uring", "tiles/s"),
    ("read.cold.floor_ring_rate", "cold reads, the format's floor over io_uring", "tiles/s"),
    ("read.cold.mount_ring_files", "cold reads, mount over io_uring / files", "ratio"),
    ("read.cold.mount_ring_bare", "cold reads, mount / bare FUSE, both over io_uring", "ratio"),
    ("read.cold.mount_ring_floor", "cold reads, mount / the format's floor, both over io_uring", "ratio"),
    ("read.cold1.mount_files", "cold reads with 1 reader, mount / files", "ratio"),
    ("read.cold1.mount_ring_files", "cold reads with 1 reader, mount over io_uring / files", "ratio"),
    ("read.inflate_rate", "the inflate alone (libdeflate, 1 thread, read.sh's tiles in memory)", "tiles/s"),
    ("walk.du_warm_s", "`du -s` of the pack again on the same mount (warm)", "s"),
    ("walk.find_warm_s", "`find -type f \\| wc -l` of the pack again on the same mount (warm)", "s"),
    ("walk.lsR_warm_s", "`ls -lR` of the pack again on the same mount (warm)", "s"),
    ("walk.bare_du_warm_s", "`du -s` of bare_fuse.c --tree again (warm)", "s"),
    ("walk.bare_find_warm_s", "`find -type f \\| wc -l` of bare_fuse.c --tree again (warm)", "s"),
    ("walk.bare_lsR_warm_s", "`ls -lR` of bare_fuse.c --tree again (warm)", "s"),
    ("download.packfs_s", "`packfs download`", "s"),
    ("download.curl_s", "`curl --parallel --parallel-max 20`", "s"),
    ("download.packfs_mb", "`packfs download` peak resident set", "MB"),
    ("download.curl_mb", "curl peak resident set", "MB"),
]

def load(path):
    figures, params = {}, {}
    for line in open(path):
        words = line.split()
        if len(words) == 3 and words[0] == "#":
            params[words[1]] = words[2]
        elif len(words) == 2 and not line.startswith("#"):
            figures.setdefault(words[0], []).append(float(words[1]))
    return figures, params

def show(value, unit):
    if unit == "ratio":
        return f"{value:.2f}" if value < 10 else f"{value:.1f}"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "s":
        return f"{value:.3f} s" if value < 1 else f"{value:.2f} s"
    if unit in ("MB", "ms"):
        return f"{value:.1f} {unit}"
    return f"{value:,.0f} {unit}"

def show_limit(limit, unit):
    return f"{limit:g}" + {"ratio": "", "x": "x"}.get(unit, " " + unit)

def verdict(stats, unit, target):
    """'yes', or 'NO' with the judged figure and how far it is from its limit."""
    if target is None:
        return "(report)"
    operator, limit, statistic = target
    value = stats[statistic]
    holds = {">=": value >= limit, "<=": value <= limit, "<": value < limit}[operator]
    if holds:
        return "yes"
    if operator == ">=":
        short = (limit - value) / limit
        return f"**NO**: {statistic} {show(value, unit)}, {short:.1%} short" if short < 0.05 else \
            f"**NO**: {statistic} {show(value, unit)}, {short:.0%} short"
    return f"**NO**: {statistic} {show(value, unit)}, {value / limit:.1f}x the limit"

def summary(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}

class Words(dict):
    """The run's parameters for the labels (digits with thousands separators); '?' if absent."""
    def __missing__(self, key):
        return "?"

def main():
    figures, params = load(sys.argv[1])
    words = Words((k, f"{int(v):,}" if v.isdigit() else v) for k, v in params.items())
    print("| figure | baseline | min | median | max | rounds | target | holds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, label, baseline, unit, target in TARGETS:
        label = label.format_map(words)
        shown = "report" if target is None else f"{target[0]} {show_limit(target[1], unit)} ({target[2]})"
        if name not in figures:
            print(f"| {label} | {baseline} | | | | 0 | {shown} | not measured |")
            continue
        s = summary(figures[name])
        print(f"| {label} | {baseline} | {show(s['min'], unit)} | {show(s['median'], unit)} | "
              f"{show(s['max'], unit)} | {s['n']} | {shown} | {verdict(s, unit, target)} |")
    print()
    print("Behind the ratios (no targets):")
    print()
    print("| figure | min | median | max | rounds |")
    print("| --- | --- | --- | --- | --- |")
    for name, label, unit in REFERENCES:
        if name in figures:
            s = summary(figures[name])
            print(f"| {label} | {show(s['min'], unit)} | {show(s['median'], unit)} | {show(s['max'], unit)} | {s['n']} |")

main()
