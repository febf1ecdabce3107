#!/usr/bin/env python3
"""Writes a pack of COUNT unique tiles straight into an offline database that `packfs reset` made and
PackFS wrote to once (`packfs cache DB clear`: its tables and triggers are there, as in any file PackFS
keeps), as PackFS's writer does: a square block of z16 tiles made from real vector tiles (real_tiles.py:
the Helsinki fixture's city-scale tiles, each made unique; stored as PackFS stores them: zlib,
`compressed = 1`; 22 KB each on average, so 1,000,000 tiles make a 22 GB database), the style that
names them and the region, then tile after tile its row, its served size in PackFS's
packfs_tile_sizes table (`--app`: none, as an app's pack would be, so the mount must inflate every
tile for its size) and its membership, so that PackFS's triggers keep the pack's figures, extents,
runs and kept tiles (packfs_pack_tiles) as a download would, their pages among the tiles'. For the
scale benchmarks (a 1,000,000-tile pack takes minutes this way, hours through a server).
Usage: gen_pack.py DB COUNT [--app]"""
import math, sqlite3, sys
from offline_pack import insert_pack
from real_tiles import ZLIB, RealTiles


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
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'packfs_tile_sizes'").fetchone():
        sys.exit(f"{path}: no PackFS tables (run `packfs cache {path} clear` first)")
    sized = "--app" not in sys.argv[3:]
    with db:
        tiles = RealTiles(ZLIB)
        key = lambda i: (x0 + i // side, y0 + i % side)
        name = lambda i: b"%d/%d/%d" % (z, *key(i))
        region = insert_pack(db, definition, style_url, style, template, ())
        for i in range(count):
            data = tiles.tile(i, name(i))[1]
            tile = db.execute("INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) "
                              "VALUES (?, 1, ?, ?, ?, ?, 1, 0)", (template, z, *key(i), data)).lastrowid
            if sized:
                db.execute("INSERT INTO packfs_tile_sizes (tile_id, size) VALUES (?, ?)",
                           (tile, tiles.raw_size(i, name(i))))
            db.execute("INSERT INTO region_tiles (region_id, tile_id) VALUES (?, ?)", (region, tile))
    db.close()
    print(count)

main()
