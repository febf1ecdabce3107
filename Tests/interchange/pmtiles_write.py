#!/usr/bin/env python3
"""Writes a PMTiles archive with the reference Python package (pmtiles.writer), for PackFS to
import, and prints the tiles it wrote as JSON: {"z/x/y": base64 of the bytes as written}.

Every tile of zooms 0 to MAXZOOM, gzipped vector-tile-like bytes padded with 0-299 seeded random
bytes (so that entry lengths vary, as real tiles' do); every fifth tile of the deepest zoom holds
one shared "ocean" content (the writer stores it once, and runs of it become run-length entries).
With MAXZOOM 7 (21,845 tiles) the root outgrows 16 KiB and the writer makes leaf directories.

usage: pmtiles_write.py ARCHIVE MAXZOOM
"""
import base64
import gzip
import json
import random
import sys

from pmtiles.tile import Compression, TileType, zxy_to_tileid
from pmtiles.writer import Writer


def main(path, maxzoom):
    ocean = gzip.compress(b"\x1a\x05ocean", mtime=0)
    tiles = {}
    noise = random.Random(8)
    for z in range(maxzoom + 1):
        for x in range(1 << z):
            for y in range(1 << z):
                if z == maxzoom and (x + y) % 5 == 0:
                    data = ocean
                else:
                    padding = bytes(noise.randrange(256) for _ in range(noise.randrange(300)))
                    data = gzip.compress(f"tile {z}/{x}/{y}".encode() + padding, mtime=0)
                tiles[zxy_to_tileid(z, x, y)] = (f"{z}/{x}/{y}", data)
    with open(path, "wb") as f:
        writer = Writer(f)
        for tile_id in sorted(tiles):
            writer.write_tile(tile_id, tiles[tile_id][1])
        writer.finalize(
            {
                "tile_type": TileType.MVT,
                "tile_compression": Compression.GZIP,
                "min_lon_e7": -1800000000, "min_lat_e7": -850511000,
                "max_lon_e7": 1800000000, "max_lat_e7": 850511000,
                "center_zoom": 2, "center_lon_e7": 0, "center_lat_e7": 0,
            },
            {
                "name": "python grid", "attribution": "written by pmtiles.writer",
                "vector_layers": [{"id": "grid", "fields": {}}],
            },
        )
    json.dump({key: base64.b64encode(data).decode() for key, data in tiles.values()}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
