#!/usr/bin/env python3
"""Builds an MBTiles file of a generated tile server root (gen_tiles.py), independently of PackFS:
the reference a PackFS database of the same tiles is sized against. The standard MBTiles 1.3 schema
(metadata and tiles tables, the unique tile index), every tile stored as its pre-gzipped .pbf.gz
sibling, the bytes the tile server ships (and the form MBTiles vector tiles take in the wild),
rows TMS-numbered, then VACUUMed. Prints the file's size in bytes. Usage: gen_mbtiles.py ROOT OUT"""
import os, sqlite3, sys

SCHEMA = """
CREATE TABLE metadata (name text, value text);
CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
CREATE UNIQUE INDEX tile_index on tiles (zoom_level, tile_column, tile_row);
"""

def tiles(root):
    """(z, x, y, gzip bytes) of every tile under ROOT/tiles/z/x/y.pbf.gz, in (z, x, y) order."""
    base = os.path.join(root, "tiles")
    for z in sorted(map(int, os.listdir(base))):
        for x in sorted(map(int, os.listdir(os.path.join(base, str(z))))):
            column = os.path.join(base, str(z), str(x))
            for y in sorted(int(n[:-len(".pbf.gz")]) for n in os.listdir(column) if n.endswith(".pbf.gz")):
                with open(os.path.join(column, "%d.pbf.gz" % y), "rb") as f:
                    yield z, x, y, f.read()

def main():
    root, out = sys.argv[1], sys.argv[2]
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    zooms = set()
    with db:
        for z, x, y, data in tiles(root):
            zooms.add(z)
            db.execute("INSERT INTO tiles VALUES (?, ?, ?, ?)", (z, x, (1 << z) - 1 - y, data))
        db.executemany("INSERT INTO metadata VALUES (?, ?)",
                       [("name", "bench"), ("format", "pbf"), ("type", "overlay"),
                        ("minzoom", str(min(zooms))), ("maxzoom", str(max(zooms)))])
    db.execute("VACUUM")
    db.close()
    print(os.path.getsize(out))

main()
