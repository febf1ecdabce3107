#!/usr/bin/env python3
"""Writes a copy of a PMTiles archive with the reference Python package (pmtiles.reader and
pmtiles.writer) in which the tiles named on the command line hold other bytes: each becomes the
gzip of a vector tile whose one layer is named "changed z/x/y" (a new version of the archive, for the refresh tests). Header fields and
metadata are kept. With --text each becomes the gzip of the text "not a tile z/x/y" instead (an
archive whose tiles are not what its header says, for the content check's tests).

usage: pmtiles_edit.py [--text] IN OUT Z/X/Y [Z/X/Y ...]
"""
import gzip
import json
import sys

from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import zxy_to_tileid
from pmtiles.writer import Writer


def changed_tile(name):
    """A Mapbox Vector Tile of one layer named "changed z/x/y" (a downloader checks tiles)."""
    label = f"changed {name}".encode()
    layer = bytes([0x0A, len(label)]) + label
    return bytes([0x1A, len(layer)]) + layer


def main(source, target, changed, text=False):
    with open(source, "rb") as f:
        get_bytes = MmapSource(f)
        reader = Reader(get_bytes)
        header = reader.header()
        metadata = reader.metadata()
        tiles = {zxy_to_tileid(z, x, y): (f"{z}/{x}/{y}", data) for (z, x, y), data in all_tiles(get_bytes)}
    missing = set(changed) - {name for name, _ in tiles.values()}
    if missing:
        raise SystemExit(f"not in the archive: {sorted(missing)}")
    with open(target, "wb") as f:
        writer = Writer(f)
        for tile_id in sorted(tiles):
            name, data = tiles[tile_id]
            if name in changed:
                data = gzip.compress(f"not a tile {name}".encode() if text else changed_tile(name), mtime=0)
            writer.write_tile(tile_id, data)
        writer.finalize(header, metadata)


if __name__ == "__main__":
    text = sys.argv[1:2] == ["--text"]
    args = sys.argv[2:] if text else sys.argv[1:]
    if len(args) < 3:
        raise SystemExit(__doc__)
    main(args[0], args[1], set(args[2:]), text)
