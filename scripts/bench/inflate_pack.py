#!/usr/bin/env python3
"""Rewrites every compressed tile of an offline database inflated (`compressed` 0), as MapLibre's
format allows: read.sh's PACKFS_BENCH_STORE=raw, the measure of one lever for cold reads (a pack
that keeps its tiles inflated costs its readers no inflate, and the disk about twice the bytes).
One transaction. Usage: inflate_pack.py DB"""
import sqlite3, sys, zlib

db = sqlite3.connect(sys.argv[1])
with db:
    rows = db.execute("SELECT id, data FROM tiles WHERE compressed = 1 AND data IS NOT NULL").fetchall()
    db.executemany("UPDATE tiles SET data = ?, compressed = 0 WHERE id = ?",
                   ((zlib.decompress(data), tile) for tile, data in rows))
print(f"{len(rows)} tiles stored inflated")
