#!/usr/bin/env python3
"""Reads every file listed in LIST (one path per line, relative to ROOT) with THREADS threads and
prints files per second, elapsed seconds and bytes read. Usage: read_tiles.py ROOT LIST THREADS

Each file is read the way a renderer or a web server reads a tile: open, read until EOF, close
(os.open/os.read, which release the GIL during each call). Python's open() would add an fstat
and an isatty ioctl per file that no tile reader makes; on a FUSE mount the ioctl alone is a
round trip to the daemon."""
import os, sys, threading, time

root, listing, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
paths = [line.strip() for line in open(listing) if line.strip()]
# Paths relative to ROOT (z/x/y.pbf), so that both sides walk the same three names: absolute
# paths would add the prefix's components and, for the mount, a mount-point crossing, which
# measure where each tree sits rather than how it serves a tile.
os.chdir(root)
total = [0]
lock = threading.Lock()

def read_all(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        size = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return size
            size += len(chunk)
    finally:
        os.close(fd)

def work(part):
    size = sum(read_all(path) for path in part)
    with lock:
        total[0] += size

start = time.perf_counter()
workers = [threading.Thread(target=work, args=(paths[i::threads],)) for i in range(threads)]
for w in workers: w.start()
for w in workers: w.join()
elapsed = time.perf_counter() - start
print(f"{len(paths) / elapsed:.0f} {elapsed:.3f} {total[0]}")
