#!/usr/bin/env python3
"""Writes a pack of COUNT unique tiles straight into an offline database that `packfs reset` made:
a square block of z16 tiles made from real vector tiles (real_tiles.py: the Helsinki fixture's
city-scale tiles, each made unique; stored as PackFS stores them: zlib, `compressed = 1`;
22 KB each on average, so 1,000,000 tiles make a 22 GB database), the style
that names them, the region and its memberships, and each tile's served size in PackFS's
packfs_tile_sizes table, as PackFS's writer keeps it (`--app`: without, as an app's pack would be,
so the mount must inflate every tile for its size). For the scale benchmarks (a 1,000,000-tile
pack takes minutes this way, hours through a server). Usage: gen_pack.py DB COUNT [--app]"""
import math, sqlite3, sys
from offline_pack import insert_pack
from real_tiles import ZLIB, RealTiles

# PackFS's sizes table and its triggers, as Sources/PackStore/Schema/Schema.swift creates them.
SIZES = ["""CREATE TABLE IF NOT EXISTS packfs_tile_sizes (
  tile_id INTEGER NOT NULL PRIMARY KEY,
  size INTEGER NOT NULL
)""", """CREATE TRIGGER IF NOT EXISTS packfs_tile_sizes_update AFTER UPDATE OF data, compressed ON tiles
BEGIN DELETE FROM packfs_tile_sizes WHERE tile_id = old.id; END""",
         """CREATE TRIGGER IF NOT EXISTS packfs_tile_sizes_delete AFTER DELETE ON tiles
BEGIN DELETE FROM packfs_tile_sizes WHERE tile_id = old.id; END"""]

def main():
    path, count = sys.argv[1], int(sys.argv[2])
    side = math.ceil(math.sqrt(count))
    z, x0, y0 = 16, 37_000, 18_000
    template = "http://bench.invalid/big/{z}/{x}/{y}.pbf"
    style_url = "http://bench.invalid/style.json"
    style = {"version": 8, "sources": {"big": {"type": "vector", "tiles": [template], "minzoom": z, "maxzoom": z}},
             "layers": []}
    n = 2 ** z
    lon = lambda x: x / n * 360 - 180
    lat = lambda y: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / n))))
    e = 1e-9
    definition = (f'{{"style_url":"{style_url}","min_zoom":{z}.0,"max_zoom":{z}.0,"pixel_ratio":1.0,'
                  f'"include_ideographs":false,"bounds":[{lat(y0 + side) + e!r},{lon(x0) + e!r},'
                  f'{lat(y0) - e!r},{lon(x0 + side) - e!r}]}}')
    db = sqlite3.connect(path)
    db.execute("PRAGMA foreign_keys = ON")
    with db:
        tiles = RealTiles(ZLIB)
        key = lambda i: (x0 + i // side, y0 + i % side)
        name = lambda i: b"%d/%d/%d" % (z, *key(i))
        region = insert_pack(db, definition, style_url, style, template,
                             ((z, *key(i), tiles.tile(i, name(i))[1]) for i in range(count)))
        if "--app" not in sys.argv[3:]:
            for statement in SIZES:
                db.execute(statement)
            db.executemany("INSERT INTO packfs_tile_sizes (tile_id, size) SELECT id, ? FROM tiles "
                           "WHERE url_template = ? AND pixel_ratio = 1 AND z = ? AND x = ? AND y = ?",
                           ((tiles.raw_size(i, name(i)), template, z, *key(i)) for i in range(count)))
        db.execute("INSERT INTO region_tiles (region_id, tile_id) SELECT ?, id FROM tiles", (region,))
    db.close()
    print(count)

main()
