"""Unique benchmark tiles made from real ones: the city-scale tiles (zooms 12-14) of the Helsinki
fixture (Fixtures/mbtiles/helsinki.mbtiles: OpenStreetMap, OpenMapTiles schema), cycled, so the
benchmarks' tiles have a city's sizes (3.8 to 81 KB stored, 22 KB on average; 44 KB raw) and
compress as real vector tiles do. Generated text (the benchmarks' tiles before) deflated 5x better,
which made every inflate and every copy cheaper than a real pack's.

Each tile is made unique without changing how it compresses: its real bytes, then one small
protobuf field naming it (field 16 of `Tile`, the range the vector tile spec reserves for
extensions, which readers skip), deflated. The deflater is fed the real bytes once per pool tile
and copied for each tile, so a million tiles cost a million small deflates, not a million large
ones; the bytes are the same as deflating each tile whole. Used by gen_tiles.py and gen_pack.py."""
import os, sqlite3, zlib

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "Fixtures", "mbtiles", "helsinki.mbtiles")
LEAST_ZOOM = 12
GZIP, ZLIB = 31, 15  # zlib's wbits: a gzip member (tile servers, MBTiles), a zlib stream (MapLibre's store)


def _varint(value):
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def extension(name):
    """Field 16, length-delimited (key 16 << 3 | 2), holding `name`."""
    return _varint(16 << 3 | 2) + _varint(len(name)) + name


class RealTiles:
    """`tile(i, name)`: the i-th benchmark tile, unique by `name`, as (raw bytes, deflated bytes)."""

    def __init__(self, wbits, fixture=FIXTURE, level=6):
        source = sqlite3.connect(fixture)
        rows = source.execute("SELECT tile_data FROM tiles WHERE zoom_level >= ? "
                              "ORDER BY zoom_level, tile_column, tile_row", (LEAST_ZOOM,))
        self.pool = []
        for (data,) in rows:
            raw = zlib.decompress(bytes(data), 47)  # gzip or zlib, as the fixture stores it
            deflater = zlib.compressobj(level, zlib.DEFLATED, wbits)
            self.pool.append((raw, deflater.compress(raw), deflater))
        source.close()
        if not self.pool:
            raise SystemExit(f"no tiles of zoom {LEAST_ZOOM}+ in {fixture}")

    def raw_size(self, i, name):
        """The size of `tile(i, name)`'s raw bytes, without deflating it."""
        return len(self.pool[i % len(self.pool)][0]) + len(extension(name))

    def tile(self, i, name):
        raw, head, deflater = self.pool[i % len(self.pool)]
        field = extension(name)
        rest = deflater.copy()
        return raw + field, head + rest.compress(field) + rest.flush()
