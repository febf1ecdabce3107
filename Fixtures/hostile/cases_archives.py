"""PMTiles archives a `pmtiles://` source may point at (archives/): a small valid archive of three
real Helsinki tiles (z6-8), then copies with one field of the header or of a directory changed as a
hostile server would: offsets and lengths near 2^64 (whose sums wrap), sections past the end of
the file, tile ids and runs that wrap, leaves outside their section or nested in a loop, zooms
no tile id holds. Each is served by nginx to a mount (MountTests/HostileArchiveMountTests) and
to `packfs estimate`: the pack ends in `error` naming the archive and what is wrong, the daemon
keeps serving. The fuzz target `pmtiles` takes them as seeds (scripts/fuzz.sh)."""
import gzip
import json
import os
import struct

from corpus import case

HERE = os.path.dirname(os.path.abspath(__file__))
TILES = os.path.join(HERE, "..", "world", "tiles", "helsinki")
TOP = 1 << 64
# Tile ids of 6/36/18, 7/72/37 and 8/145/74 on the Hilbert curves (spec 4.1): the tiles holding
# central Helsinki (the fixture's lower zooms are empty files, which no directory entry may hold).
BASE_TILES = [(4873, "6/36/18.pbf"), (19496, "7/72/37.pbf"), (77986, "8/145/74.pbf")]


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def directory(entries, raw=False):
    """Entries (tile_id, offset, length, run_length) in the spec's columns, gzipped; ids as given
    (each a difference from the previous one, modulo 2^64), offsets written as offset + 1."""
    out = varint(len(entries))
    previous = 0
    for entry in entries:
        out += varint((entry[0] - previous) % TOP)
        previous = entry[0]
    for column in (3, 2):
        for entry in entries:
            out += varint(entry[column])
    for entry in entries:
        out += varint((entry[1] + 1) % TOP)
    return out if raw else gzip.compress(out, mtime=0)


def header(fields):
    """The 127-byte header from a dict of its fields (spec chapter 3)."""
    sections = b"".join(struct.pack("<QQ", fields[name + "_offset"] % TOP, fields[name + "_length"] % TOP)
                        for name in ("root", "metadata", "leaves", "data"))
    counts = struct.pack("<QQQ", 3, 3, 3)
    flags = bytes([1, fields["internal"], 1, 1, fields["min_zoom"], fields["max_zoom"]])
    positions = struct.pack("<ii", 249_000_000, 601_000_000) + struct.pack("<ii", 250_000_000, 602_000_000)
    center = bytes([fields["min_zoom"]]) + struct.pack("<ii", 249_500_000, 601_500_000)
    return b"PMTiles\x03" + sections + counts + flags + positions + center


def archive(**changes):
    """The base archive with `changes`: header fields (`root_offset=...`), `entries` (the root
    directory's), `root` (its bytes), `leaves` (the leaf section's bytes)."""
    data, entries = b"", []
    for tile_id, path in BASE_TILES:
        with open(os.path.join(TILES, path), "rb") as f:
            tile = f.read()
        entries.append((tile_id, len(data), len(tile), 1))
        data += tile
    entries = changes.pop("entries", entries)
    root = changes.pop("root", None) or directory(entries)
    leaves = changes.pop("leaves", b"")
    metadata = gzip.compress(json.dumps({"name": "hostile", "vector_layers": [{"id": "water"}]}).encode(), mtime=0)
    fields = dict(internal=2, min_zoom=6, max_zoom=8, root_offset=127, root_length=len(root))
    fields.update(metadata_offset=127 + len(root), metadata_length=len(metadata))
    fields.update(leaves_offset=fields["metadata_offset"] + len(metadata), leaves_length=len(leaves))
    fields.update(data_offset=fields["leaves_offset"] + len(leaves), data_length=len(data))
    fields.update(changes)
    return header(fields) + root + metadata + leaves + data


# A leaf directory whose one entry points at itself (offset 0 of the leaf section, its own length).
LOOP = directory([(4873, 0, len(directory([(4873, 0, 30, 0)])), 0)])
assert len(LOOP) == len(directory([(4873, 0, 30, 0)]))


# `packfs estimate` reads the header and directories, never a tile: tile data that only a tile's
# range request finds missing is not its to see.
ESTIMATE_READS_NO_TILE = "estimated (no tile is read); the download ends in error"


def cases():
    def ar(name, wrong, expect, estimate=None, **changes):
        extra = {"accepted": "the pack completes"} if expect is None else {}
        if estimate:
            extra["estimate"] = estimate
        return case("archive", "archives/%s.pmtiles" % name, archive(**changes), wrong, expect, **extra)

    end = len(archive())
    tiles = [(4873, 0, 70, 1), (19496, 70, 203, 1), (77986, 273, 213, 1)]
    return [
        ar("valid", "nothing: three real tiles, the base of every other case", None),
        ar("root-offset-wraps", "root directory at 2^64 - 256, 512 bytes (offset + length wraps)",
           ["root directory", "2^63"], root_offset=TOP - 256, root_length=512),
        ar("root-length-huge", "root directory of 2^64 - 1 bytes", ["root directory", "2^63"], root_length=TOP - 1),
        ar("metadata-offset-wraps", "metadata at 2^64 - 100, 200 bytes", ["metadata", "2^63"],
           metadata_offset=TOP - 100, metadata_length=200),
        ar("leaves-offset-wraps", "leaf directories at 2^64 - 16", ["leaf directories", "2^63"],
           leaves_offset=TOP - 16, leaves_length=64),
        ar("data-offset-wraps", "tile data at 2^64 - 1000, 2000 bytes", ["tile data", "2^63"],
           data_offset=TOP - 1000, data_length=2000),
        ar("data-near-2-63", "tile data ending at 2^63 - 1, far past the file", ["tile data", "past the end"],
           data_offset=(1 << 63) - (1 << 20), data_length=(1 << 20) - 1, estimate=ESTIMATE_READS_NO_TILE),
        ar("root-past-end", "root directory a megabyte past the end of the file", ["root directory", "past the end"],
           root_offset=end + (1 << 20), root_length=100),
        ar("metadata-past-end", "metadata running a megabyte past the end of the file", ["metadata", "past the end"],
           metadata_length=1 << 20),
        ar("entry-offset-wraps", "a tile at offset 2^64 - 2 of the tile data", ["lies outside the tile data"],
           entries=[(4873, TOP - 2, 70, 1)] + tiles[1:]),
        ar("entry-past-data", "a tile whose bytes run past the tile data", ["lies outside the tile data"],
           entries=tiles[:2] + [(77986, 273, 4_000_000, 1)]),
        ar("ids-wrap", "tile id differences that sum past 2^64", ["root directory", "64 bits"],
           root=gzip.compress(varint(2) + varint(4873) + varint(TOP - 1) + varint(1) * 2 + varint(70) * 2
                              + varint(1) * 2, mtime=0)),
        ar("run-wraps", "a run of 2^32 - 1 tiles from id 2^64 - 3 (past every zoom, and past 2^64)", None,
           entries=tiles + [(TOP - 3, 0, 100, (1 << 32) - 1)]),
        ar("leaf-outside", "a leaf directory pointer past the leaf directories", ["leaf directory", "outside"],
           entries=[(4873, 5000, 40, 0)]),
        ar("leaves-loop", "a leaf directory that points at itself", ["deeper than 3"],
           entries=[(4873, 0, len(LOOP), 0)], leaves=LOOP),
        ar("max-zoom-200", "max zoom 200 in the header", ["max zoom 200"], max_zoom=200),
        ar("zooms-inverted", "min zoom 9 above max zoom 8", ["min zoom 9", "max zoom 8"], min_zoom=9),
        ar("count-huge", "a root directory claiming 2^60 entries", ["root directory", "entries"],
           root=gzip.compress(varint(1 << 60) + varint(0) * 8, mtime=0)),
        ar("root-not-gzip", "a root directory that is not gzip though the header says so", ["root directory", "inflate"],
           root=b"not gzip at all, just text"),
        ar("brotli", "internal compression brotli", ["compression", "not supported"], internal=3),
    ]
