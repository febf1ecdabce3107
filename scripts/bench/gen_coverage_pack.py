#!/usr/bin/env python3
"""Writes a pack of about COUNT tiles for the coverage benchmark into an offline database that
`packfs reset` made (and, for the triggers' cost, that a first PackFS write gave its bookkeeping):
a disc of tiles around Helsinki at every zoom from 0 to 14 (a region's shape, not a square),
its z14 missing one tile in a thousand (holes), each tile's bytes one of the fixture world's
real vector tiles (Fixtures/world/tiles/helsinki), stored as PackFS stores them (zlib,
`compressed = 1`), with the style that names them and the region. Prints the tile count and the
seconds the memberships took to insert (with PackFS's triggers when the file has them).
Usage: gen_coverage_pack.py DB COUNT"""
import glob, math, os, sqlite3, sys, time, zlib
from offline_pack import insert_pack

def main():
    path, count = sys.argv[1], int(sys.argv[2])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Fixtures/world/tiles/helsinki")
    bodies = [zlib.compress(open(p, "rb").read()) for p in sorted(glob.glob(root + "/**/*.pbf", recursive=True))]
    top = 14
    # A disc at z14 holds pi r^2 tiles, all zooms together 4/3 of that.
    radius = math.sqrt(count * 3 / 4 / math.pi)
    n = 2 ** top
    cx, cy = int((24.94 + 180) / 360 * n), int((1 - math.asinh(math.tan(math.radians(60.17))) / math.pi) / 2 * n)
    template = "http://bench.invalid/helsinki/{z}/{x}/{y}.pbf"
    style_url = "http://bench.invalid/style.json"
    style = {"version": 8, "sources": {"helsinki": {"type": "vector", "tiles": [template], "minzoom": 0, "maxzoom": top}},
             "layers": []}
    definition = (f'{{"style_url":"{style_url}","min_zoom":0.0,"max_zoom":{top}.0,"pixel_ratio":1.0,'
                  f'"include_ideographs":false,"bounds":[59.0,22.0,61.0,27.0]}}')

    def cells():
        for z in range(top + 1):
            scale = 2 ** (top - z)
            r, x0, y0 = radius / scale, cx / scale, cy / scale
            for x in range(math.floor(x0 - r), math.ceil(x0 + r) + 1):
                for y in range(math.floor(y0 - r), math.ceil(y0 + r) + 1):
                    if (x + 0.5 - x0) ** 2 + (y + 0.5 - y0) ** 2 > r * r and not (z == 0 or r < 1 and x == int(x0) and y == int(y0)):
                        continue
                    if z == top and (x * 7919 + y * 104729) % 1000 == 0:
                        continue  # a hole
                    yield z, x, y

    db = sqlite3.connect(path)
    db.execute("PRAGMA foreign_keys = ON")
    with db:
        region = insert_pack(db, definition, style_url, style, template,
                             ((z, x, y, bodies[(x + y) % len(bodies)]) for z, x, y in cells()))
    with db:
        start = time.monotonic()
        db.execute("INSERT INTO region_tiles (region_id, tile_id) SELECT ?, id FROM tiles ORDER BY z, x, y", (region,))
        seconds = time.monotonic() - start
    tiles = db.execute("SELECT COUNT(*) FROM region_tiles").fetchone()[0]
    db.close()
    print(tiles, "%.1f" % seconds)

main()
