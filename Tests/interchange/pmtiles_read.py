#!/usr/bin/env python3
"""Reads a PMTiles archive with the reference Python package (pmtiles.reader), independently of
PackFS, and prints what it finds as one JSON object:

  header       every header field (enums as their numbers)
  metadata     the metadata object
  root_leaves  root directory entries that point at leaf directories (run length 0)
  tiles        {"z/x/y": base64 of the bytes as the archive holds them}, from a walk of all
               directories (pmtiles.reader.all_tiles)
  lookups      how many tiles were also looked up with Reader.get(z, x, y), which searches the
               directories from the root (and through a leaf) for one tile: the first, the last
               and every 97th (it parses a whole leaf per call, too slow for every tile)
  lookups_agree  true when each lookup returned the same bytes as the walk

usage: pmtiles_read.py ARCHIVE
"""
import base64
import json
import sys

from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import deserialize_directory


def main(path):
    with open(path, "rb") as f:
        get_bytes = MmapSource(f)
        reader = Reader(get_bytes)
        header = reader.header()
        root = deserialize_directory(get_bytes(header["root_offset"], header["root_length"]))
        tiles = {}
        walked = []
        for (z, x, y), data in all_tiles(get_bytes):
            key = f"{z}/{x}/{y}"
            if key in tiles:
                raise SystemExit(f"{key} appears twice")
            tiles[key] = base64.b64encode(data).decode()
            walked.append(((z, x, y), data))
        sample = walked[::97] + walked[-1:]
        lookups_agree = all(reader.get(*zxy) == data for zxy, data in sample)
        out = {
            "header": {k: (v.value if hasattr(v, "value") else v) for k, v in header.items()},
            "metadata": reader.metadata(),
            "root_leaves": sum(1 for e in root if e.run_length == 0),
            "tiles": tiles,
            "lookups": len(sample),
            "lookups_agree": lookups_agree,
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
