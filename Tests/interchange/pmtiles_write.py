#!/usr/bin/env python3
"""Writes a PMTiles archive with the reference Python package (pmtiles.writer), for PackFS to
import, and prints the tiles it wrote as JSON: {"z/x/y": base64 of the bytes as written}.

Every tile of zooms 0 to MAXZOOM, a gzipped vector tile of one layer "grid" whose keys hold its
name and 0-299 seeded random hex digits (so that entry lengths vary, as real tiles' do; a
downloader checks that tiles are vector tiles); every fifth tile of the deepest zoom holds
one shared "ocean" content (the writer stores it once, and runs of it become run-length entries).
With MAXZOOM 7 (21,845 tiles) the root outgrows 16 KiB and the writer makes leaf directories. With
LEAF, the writer's own leaves of LEAF entries each whatever the root's size (its build_roots_leaves),
so that a small archive has several.

usage: pmtiles_write.py ARCHIVE MAXZOOM [LEAF]
"""
import base64
import gzip
import json
import random
import sys

from pmtiles.tile import Compression, TileType, zxy_to_tileid
import pmtiles.writer
from pmtiles.writer import Writer


def field(number, payload):
    """A length-delimited protobuf field (lengths here stay below 128: one byte)."""
    assert len(payload) < 128
    return bytes([number << 3 | 2, len(payload)]) + payload


def vector_tile(*keys):
    """A Mapbox Vector Tile: one layer "grid" (version 2) with `keys` and no features."""
    layer = field(1, b"grid") + b"".join(field(3, key) for key in keys) + b"\x78\x02"
    return field(3, layer) if len(layer) < 128 else bytes([3 << 3 | 2, len(layer) & 0x7F | 0x80, len(layer) >> 7]) + layer


def main(path, maxzoom, leaf=None):
    if leaf is not None:
        pmtiles.writer.optimize_directories = lambda entries, _: pmtiles.writer.build_roots_leaves(entries, leaf)
    ocean = gzip.compress(vector_tile(b"ocean"), mtime=0)
    tiles = {}
    noise = random.Random(8)
    for z in range(maxzoom + 1):
        for x in range(1 << z):
            for y in range(1 << z):
                if z == maxzoom and (x + y) % 5 == 0:
                    data = ocean
                else:
                    padding = "".join(f"{noise.randrange(16):x}" for _ in range(noise.randrange(300))).encode()
                    keys = [padding[i:i + 100] for i in range(0, len(padding), 100)]
                    data = gzip.compress(vector_tile(f"tile {z}/{x}/{y}".encode(), *keys), mtime=0)
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
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
