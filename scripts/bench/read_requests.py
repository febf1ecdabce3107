#!/usr/bin/env python3
"""read.sh's count of what one pass sent one tree, from its tracing instance (read.sh's
trace_start): the FUSE requests the kernel sent the tree's connection, by opcode (tracepoint
fuse:fuse_request_send, whose `connection` is the mount's device), and the pages the kernel
dropped from the tree's page cache (filemap:mm_filemap_delete_from_page_cache, by `s_dev`), with
how many of those DAMON's kdamond dropped (its pageout of idle pages), and which processes dropped
them (kswapd: reclaim; a shell: a drop_caches, here another benchmark's on this shared machine). For the plain files, whose disk other processes use too, only the tiles' own inodes
count. Also the events the buffer lost (its overrun), which must be 0 for the counts to hold.
read.sh empties the buffer after each pass, so what the trace holds for other trees (a page that
DAMON dropped from one tree while another was read) is kept in PENDING, a JSON file, and counted
in that tree's next pass: each warm pass counts all that reached its tree since its last pass.
Prints one line: "OPCODE=N ... evicted=PAGES damon=PAGES lost=EVENTS by=COMM:PAGES,...".
Usage: read_requests.py INSTANCE DEV PENDING FILES_DEV INODES   (DEV: the tree's device as the
kernel's dev_t, major << 20 | minor; FILES_DEV: the plain files' disk; INODES: a file of the
tiles' inode numbers there, one a line)"""
import glob, json, os, re, sys

REQUEST = re.compile(r"fuse_request_send: connection (\d+) req \d+ opcode \d+ \(FUSE_(\w+)\)")
DROPPED = re.compile(r"^\s*(.*?)-(\d+)\s+\[\d+\].*mm_filemap_delete_from_page_cache: dev (\d+):(\d+) ino ([0-9a-f]+) "
                     r".* order=(\d+)")


def kdamonds():
    """The pids of DAMON's kernel threads (none if DAMON is off)."""
    pids = set()
    for path in glob.glob("/sys/kernel/mm/damon/admin/kdamonds/*/pid"):
        text = open(path).read().strip()
        if text.isdigit() and text != "-1":
            pids.add(text)
    return pids


def lost(instance):
    total = 0
    for stats in glob.glob(os.path.join(instance, "per_cpu", "cpu*", "stats")):
        for line in open(stats):
            name, _, value = line.partition(":")
            if name.strip() in ("overrun", "dropped events"):
                total += int(value.split()[0])
    return total


def tree(counts, device):
    return counts.setdefault(str(device), {"evicted": 0, "damon": 0, "by": {}})


def add(counts, device, key, n):
    counts = tree(counts, device)
    counts[key] = counts.get(key, 0) + n


def main():
    instance, dev, pending, files_dev = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    inodes = {int(line) for line in open(sys.argv[5])}
    damon = kdamonds()
    counts = json.load(open(pending)) if os.path.exists(pending) else {}
    for line in open(os.path.join(instance, "trace")):
        match = REQUEST.search(line)
        if match:
            add(counts, match[1], match[2], 1)
            continue
        match = DROPPED.search(line)
        if not match:
            continue
        device = int(match[3]) << 20 | int(match[4])
        if device == files_dev and int(match[5], 16) not in inodes:
            continue  # the disk's other files
        pages = 1 << int(match[6])
        add(counts, device, "evicted", pages)
        add(counts, device, "damon", pages if match[2] in damon else 0)
        by = tree(counts, device)["by"]
        by[match[1]] = by.get(match[1], 0) + pages
    mine = counts.pop(dev, None) or tree({}, dev)
    json.dump(counts, open(pending, "w"))
    words = [f"{op}={n}" for op, n in sorted(mine.items()) if op not in ("evicted", "damon", "by")]
    by = ",".join(f"{comm.replace(' ', '_')}:{n}" for comm, n in sorted(mine["by"].items(), key=lambda i: -i[1]))
    print(" ".join(words + [f"evicted={mine['evicted']}", f"damon={mine['damon']}", f"lost={lost(instance)}",
                            f"by={by}"]))


main()
