#!/usr/bin/env python3
"""Writes what pmtiles.sh serves: one PMTiles archive (by the reference writer, pmtiles.writer)
holding an OUTER x OUTER block of z14 tiles around central Helsinki and every parent of them, and
the tiles of a smaller INNER x INNER block inside it (offset from the outer block's corner, so
that it meets the Hilbert curve as a real region meets a country's archive) with their parents as
z/x/y files; two styles (the archive as a pmtiles:// source, the z/x/y tree as a tiles source) and
a region file for the inner block. Tile bodies: gzip members of vector tiles holding seeded random
bytes in an extension field, 300 to 12,000 bytes (about 3 KB on average, as OpenMapTiles z14 tiles of a countryside are).

Prints one JSON object: tiles and gzip bytes of the region, all zooms and z14 alone.
usage: gen_archive.py DIR BASE_URL OUTER INNER
"""
import gzip
import json
import math
import os
import random
import sys

from pmtiles.tile import Compression, TileType, zxy_to_tileid
from pmtiles.writer import Writer
from real_tiles import extension

Z = 14
X0, Y0 = 9326 - 128, 4742 - 128  # the outer block's north-west corner


def body(rng):
    size = int(min(max(rng.lognormvariate(math.log(2500), 0.6), 300), 12000))
    # Wrapped as a vector tile's extension field (real_tiles.py), so the tile is one: the
    # downloader checks tiles for their kind before storing them.
    return gzip.compress(extension(rng.randbytes(size)), mtime=0)


def lon(x, z):
    return x / (1 << z) * 360 - 180


def lat(y, z):
    n = math.pi - 2 * math.pi * y / (1 << z)
    return math.degrees(math.atan(math.sinh(n)))


def block(x, y, size):
    """Every tile of zooms 0-14 the z14 block (x, y, size) needs: the block and its parents."""
    tiles = set()
    for z in range(Z, -1, -1):
        shift = Z - z
        for tx in range(x >> shift, ((x + size - 1) >> shift) + 1):
            for ty in range(y >> shift, ((y + size - 1) >> shift) + 1):
                tiles.add((z, tx, ty))
    return tiles


def main(root, base, outer, inner):
    rng = random.Random(14)
    outer_tiles = block(X0, Y0, outer)
    offset = (outer - inner) // 2 + 3
    inner_tiles = block(X0 + offset, Y0 + offset, inner)
    data = {tile: body(rng) for tile in sorted(outer_tiles)}
    os.makedirs(f"{root}/styles", exist_ok=True)
    with open(f"{root}/archive.pmtiles", "wb") as f:
        writer = Writer(f)
        for tile_id, tile in sorted((zxy_to_tileid(*t), t) for t in outer_tiles):
            writer.write_tile(tile_id, data[tile])
        west, north = lon(X0, Z), lat(Y0, Z)
        east, south = lon(X0 + outer, Z), lat(Y0 + outer, Z)
        writer.finalize(
            {
                "tile_type": TileType.MVT, "tile_compression": Compression.GZIP,
                "min_zoom": 0, "max_zoom": Z,
                "min_lon_e7": int(west * 1e7), "min_lat_e7": int(south * 1e7),
                "max_lon_e7": int(east * 1e7), "max_lat_e7": int(north * 1e7),
                "center_zoom": Z, "center_lon_e7": int((west + east) / 2 * 1e7),
                "center_lat_e7": int((south + north) / 2 * 1e7),
            },
            {"name": "bench", "vector_layers": [{"id": "bench", "fields": {}}]},
        )
    for z, x, y in inner_tiles:
        os.makedirs(f"{root}/zxy/{z}/{x}", exist_ok=True)
        with open(f"{root}/zxy/{z}/{x}/{y}.pbf", "wb") as f:
            f.write(gzip.decompress(data[(z, x, y)]))
    styles = {
        "archive": {"type": "vector", "url": f"pmtiles://{base}/archive.pmtiles"},
        "zxy": {"type": "vector", "tiles": [f"{base}/zxy/{{z}}/{{x}}/{{y}}.pbf"], "minzoom": 0, "maxzoom": Z},
    }
    for name, source in styles.items():
        with open(f"{root}/styles/{name}.json", "w") as f:
            json.dump({"version": 8, "sources": {"bench": source}, "layers": []}, f)
    # The inner block's own edges, pulled in a little so that no neighbour is covered.
    x, y, e = X0 + offset, Y0 + offset, 1e-6
    bounds = [lon(x, Z) + e, lat(y + inner, Z) + e, lon(x + inner, Z) - e, lat(y, Z) - e]
    for name in styles:
        for low in (0, Z):
            with open(f"{root}/{name}-z{low}.region", "w") as f:
                json.dump({"style": f"{base}/styles/{name}.json", "bounds": bounds, "minzoom": low, "maxzoom": Z}, f)
    z14 = [t for t in inner_tiles if t[0] == Z]
    json.dump({
        "archive_tiles": len(outer_tiles), "archive_bytes": os.path.getsize(f"{root}/archive.pmtiles"),
        "tiles": len(inner_tiles), "bytes": sum(len(data[t]) for t in inner_tiles),
        "tiles_z14": len(z14), "bytes_z14": sum(len(data[t]) for t in z14),
    }, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
