#!/usr/bin/env python3
"""Checks an MBTiles file against the tiles of one source of a pack, with readers PackFS did not
write: pymbtiles (PyPI) reads the MBTiles file, Python's own sqlite3 reads the offline database.

usage: mbtiles_check.py FILE.mbtiles DB PACK TEMPLATE [--tms]

PACK is the pack's name (regions.description's JSON `name`); TEMPLATE the source's tile URL
template as stored in tiles.url_template; --tms when the source's stored rows are TMS rows (a
`scheme: tms` source), else they are XYZ rows.

What must hold:
  - the file holds exactly the pack's tiles of TEMPLATE that have content, at TMS rows (the
    MBTiles spec's numbering: row = 2^z - 1 - y);
  - every tile reads back byte-exact: a stored tile whose content is gzip is in the file as it
    is; other vector tiles (format pbf) are gzipped in the file and inflate to the stored bytes
    exactly; images (png, jpg, webp) are the stored bytes exactly;
  - the metadata rows `name` and `format` are there (the spec's required rows), with `json`
    holding `vector_layers` for format pbf.

Stored data is zlib-deflated when tiles.compressed is 1 (MapLibre's offline database).
Prints one summary line (and the metadata as JSON); exit status 0 when everything holds, 1 when
something does not, 2 on bad usage or a missing package.
"""

import argparse
import gzip
import json
import sqlite3
import sys
import zlib


def pack_tiles(db, pack, template, tms):
    """{(z, x, tms_row): content bytes} of the pack's tiles of `template` with content."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    region = None
    for region_id, description in connection.execute("SELECT id, description FROM regions"):
        try:
            if json.loads(description)["name"] == pack:
                region = region_id
        except (TypeError, ValueError, KeyError):
            continue
    if region is None:
        raise SystemExit(f"mbtiles_check: no pack named {pack!r} in {db}")
    tiles = {}
    rows = connection.execute(
        "SELECT z, x, y, data, compressed FROM tiles JOIN region_tiles ON tile_id = id"
        " WHERE region_id = ? AND url_template = ? AND data IS NOT NULL", (region, template))
    for z, x, y, data, compressed in rows:
        content = zlib.decompress(data) if compressed else bytes(data)
        row = y if tms else (1 << z) - 1 - y
        tiles[(z, x, row)] = content
    connection.close()
    return tiles


def problems_of_tile(coordinate, stored, written, vector):
    if stored[:2] == b"\x1f\x8b" or not vector:
        return [] if written == stored else [f"{coordinate}: {len(written)} bytes differ from the {len(stored)} stored"]
    if written[:2] != b"\x1f\x8b":
        return [f"{coordinate}: vector tile not gzipped"]
    if gzip.decompress(written) != stored:
        return [f"{coordinate}: inflates to bytes other than the stored tile"]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mbtiles")
    parser.add_argument("db")
    parser.add_argument("pack")
    parser.add_argument("template")
    parser.add_argument("--tms", action="store_true")
    arguments = parser.parse_args()
    try:
        from pymbtiles import MBtiles
    except ImportError as error:
        print(f"mbtiles_check: pymbtiles is not importable: {error}", file=sys.stderr)
        return 2
    expected = pack_tiles(arguments.db, arguments.pack, arguments.template, arguments.tms)
    problems = []
    with MBtiles(arguments.mbtiles) as source:
        meta = dict(source.meta)
        vector = meta.get("format") in ("pbf", "mvt")
        present = {(tile.z, tile.x, tile.y) for tile in source.list_tiles()}
        for coordinate in sorted(expected.keys() - present):
            problems.append(f"{coordinate}: missing from the file")
        for coordinate in sorted(present - expected.keys()):
            problems.append(f"{coordinate}: in the file but not in the pack")
        for coordinate in sorted(expected.keys() & present):
            written = source.read_tile(*coordinate)
            problems += problems_of_tile(coordinate, expected[coordinate], bytes(written), vector)
    for required in ("name", "format"):
        if required not in meta:
            problems.append(f"metadata has no {required}")
    if vector and "vector_layers" not in json.loads(meta.get("json", "{}")):
        problems.append("metadata json has no vector_layers")
    print(json.dumps(meta, sort_keys=True))
    if problems:
        print(f"FAIL: {len(problems)} problems: " + "; ".join(problems[:20]))
        return 1
    print(f"OK: {len(expected)} tiles byte-exact, format {meta.get('format')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
