#!/usr/bin/env python3
"""Writes an MBTiles file of COUNT z16 tiles (a square block, TMS rows) whose bytes are the real
tiles of a fixture MBTiles file, cycled: gzipped vector tiles as MBTiles files hold them. Only the
fixture's tiles of at least MIN bytes are used (large tiles: the md5sum floor; small: all). For
`fresh.sh`, which imports it as a pack and times `packfs verify` against its floors.
Usage: gen_fresh.py FIXTURE OUT COUNT [MIN]"""
import math, sqlite3, sys

def main():
    fixture, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    least = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    source = sqlite3.connect(fixture)
    pool = [bytes(d) for (d,) in source.execute("SELECT tile_data FROM tiles ORDER BY length(tile_data) DESC")
            if len(d) >= least]
    source.close()
    side = math.ceil(math.sqrt(count))
    z, x0, y0 = 16, 37_000, 18_000
    db = sqlite3.connect(out)
    db.executescript("""
        CREATE TABLE metadata (name text, value text);
        CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
        CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
        """)
    with db:
        db.executemany("INSERT INTO metadata VALUES (?, ?)",
                       [("name", "fresh"), ("format", "pbf"), ("minzoom", str(z)), ("maxzoom", str(z))])
        db.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)",
                       ((z, x0 + i // side, y0 + i % side, pool[i % len(pool)]) for i in range(count)))
    db.close()
    print(sum(len(pool[i % len(pool)]) for i in range(count)))

main()
