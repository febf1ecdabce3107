#!/usr/bin/env python3
"""Reads every file listed in LIST (one path per line, relative to ROOT) with THREADS threads and
prints files per second. Usage: read_tiles.py ROOT LIST THREADS"""
import os, sys, threading, time

root, listing, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
paths = [os.path.join(root, line.strip()) for line in open(listing) if line.strip()]
total = [0]
lock = threading.Lock()

def work(part):
    size = 0
    for path in part:
        with open(path, "rb") as f:
            size += len(f.read())
    with lock:
        total[0] += size

start = time.perf_counter()
workers = [threading.Thread(target=work, args=(paths[i::threads],)) for i in range(threads)]
for w in workers: w.start()
for w in workers: w.join()
elapsed = time.perf_counter() - start
print(f"{len(paths) / elapsed:.0f} {elapsed:.3f} {total[0]}")
