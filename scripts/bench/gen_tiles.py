#!/usr/bin/env python3
"""Generates a tile server root for benchmarks: unique tiles made from real vector tiles
(real_tiles.py: the Helsinki fixture's city-scale tiles, each made unique), raw, for a bbox at one
zoom, each with a pre-gzipped sibling (nginx gzip_static, as tile servers serve MBTiles blobs), a
style and a TileJSON pointing at them. Usage: gen_tiles.py ROOT BASE_URL COUNT"""
import json, math, os, sys
from real_tiles import GZIP, RealTiles

def tile_range(count):
    # A square block of tiles at z15 around Helsinki, at least `count` tiles.
    z = 15
    side = math.ceil(math.sqrt(count))
    n = 2 ** z
    x0 = int((24.9 + 180) / 360 * n)
    lat = math.radians(60.17)
    y0 = int((1 - math.log(math.tan(lat) + 1 / math.cos(lat)) / math.pi) / 2 * n)
    return z, x0, y0, side

def bounds_of(z, x0, y0, side):
    n = 2 ** z
    lon = lambda x: x / n * 360 - 180
    lat = lambda y: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / n))))
    # Inset by a tiny margin so the cover is exactly the generated block.
    e = 1e-9
    return [lon(x0) + e, lat(y0 + side) + e, lon(x0 + side) - e, lat(y0) - e]

def main():
    root, base, count = sys.argv[1], sys.argv[2].rstrip("/"), int(sys.argv[3])
    z, x0, y0, side = tile_range(count)
    tiles = RealTiles(GZIP)
    urls = []
    for x in range(x0, x0 + side):
        d = os.path.join(root, "tiles", str(z), str(x))
        os.makedirs(d, exist_ok=True)
        for y in range(y0, y0 + side):
            body, gzipped = tiles.tile(len(urls), b"%d/%d/%d" % (z, x, y))
            path = os.path.join(d, "%d.pbf" % y)
            with open(path, "wb") as f:
                f.write(body)
            with open(path + ".gz", "wb") as f:
                f.write(gzipped)
            urls.append("%s/tiles/%d/%d/%d.pbf" % (base, z, x, y))
    west, south, east, north = bounds_of(z, x0, y0, side)
    style = {"version": 8, "sources": {"bench": {"type": "vector", "tiles": [base + "/tiles/{z}/{x}/{y}.pbf"],
             "minzoom": z, "maxzoom": z}}, "layers": [{"id": "bg", "type": "background"}]}
    os.makedirs(os.path.join(root, "styles"), exist_ok=True)
    with open(os.path.join(root, "styles", "bench.json"), "w") as f:
        json.dump(style, f)
    region = {"style": base + "/styles/bench.json", "bounds": [west, south, east, north], "minzoom": z, "maxzoom": z}
    with open(os.path.join(root, "region.json"), "w") as f:
        json.dump(region, f)
    with open(os.path.join(root, "urls.txt"), "w") as f:
        f.write("".join("url = \"%s\"\noutput = \"out/%d.pbf\"\n" % (u, i) for i, u in enumerate(urls)))
    print(len(urls))

main()
