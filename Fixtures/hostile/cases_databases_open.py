"""Database files that open but whose contents are hostile. The tests walk each through the
filesystem model (every directory listed, every file read) and through `packfs list` and a real
mount: `expect` words must show in the errors met on the way (None: no error at all), `packs`
names must be listed (and are looked up, with the `lookup` paths: a listing leaves out what no
inode can name), and nothing may crash."""
import gzip
import json
import zlib

from cases_databases import (BOMB, DEFINITION, TEMPLATE, TILE, build, d, region, replace_style, resource,
                             tile)
from corpus import LONG, NFC, NFD

NAMES = ["../x", "a/b", LONG, "x\u0000y", ".hidden", "x.region", "x.error", NFC, NFD, ""]


def definitions():
    odd = dict(DEFINITION, min_zoom=1e308, max_zoom=-1e308, pixel_ratio=-5.0, bounds=[1e308, -1e308, -1e308, 1e308])
    local = dict(DEFINITION, style_url="file:///etc/passwd")
    return [
        d("definition-null", build("loose", rows=[("UPDATE regions SET definition = NULL", ())]),
          "regions.definition is NULL", None, accepted="listed; no definition, so an empty pack directory",
          packs=["good"]),
        d("definition-invalid-utf8", build(rows=[("UPDATE regions SET definition = ?", (b"\xff\xfe{",))]),
          "regions.definition is a blob of invalid UTF-8", None, accepted="listed with no definition",
          packs=["good"]),
        d("definition-integer", build("loose", rows=[("UPDATE regions SET definition = 42", ())]),
          "regions.definition is the integer 42", None, accepted="listed with no definition", packs=["good"]),
        d("definition-not-json", build(rows=[("UPDATE regions SET definition = 'min_zoom=0'", ())]),
          "regions.definition is not JSON", None, accepted="listed with no definition", packs=["good"]),
        d("definition-absurd-numbers", build(rows=[region(2, odd, "odd")]),
          "zooms of +-1e308, a negative pixel ratio, bounds beyond the world", None,
          accepted="read as stored; every zoom and coordinate is clamped where tiles are counted",
          packs=["good", "odd"]),
        d("definition-local-style-active", build(rows=[region(2, local, "local")] + state(2, "active")),
          "an active pack whose style_url is file:///etc/passwd", None,
          accepted="the mount resumes it and the download refuses the URL: the pack goes to error",
          packs=["good", "local"], mount_error={"local": "file:///etc/passwd"}),
    ]


def state(region_id, value):
    return [("CREATE TABLE IF NOT EXISTS packfs_pack_state (region_id INTEGER NOT NULL PRIMARY KEY, state TEXT NOT"
             " NULL, error TEXT, required_resources INTEGER NOT NULL DEFAULT 0, required_tiles INTEGER NOT NULL"
             " DEFAULT 0, required_is_precise INTEGER NOT NULL DEFAULT 0, updated INTEGER NOT NULL)", ()),
            ("INSERT INTO packfs_pack_state VALUES (?, ?, NULL, 0, 0, 0, 0)", (region_id, value))]


def names():
    rows = [region(10 + i, name=name) for i, name in enumerate(NAMES)]
    rows.append(region(5, name="region-11"))
    rows.append(region(40, description=b"\xff\xfe not json"))
    rows.append(region(41, description=b"x" * 300_000))
    return [d("description-names", build(rows=rows),
              "pack names with slashes, NUL, 300 bytes, a dot, .region/.error endings, NFC and NFD twins, a name"
              " another pack falls back to, an empty name, a binary and a 300 KB description", None,
              accepted="unusable names fall back to region-<id>; twins and collisions get region-<id>-<n>",
              packs=["good", "region-11", "region-10", "region-11-2", "region-12", "region-13", "region-14",
                     "region-15", "region-16", NFC, "region-18", "region-19", "region-40", "region-41"])]


def ids_and_coordinates():
    raw = open_tile()
    return [
        d("region-id-negative", build(rows=[region(-5, name="negative")] + tile(2, 1, 0, 0, raw, 0, region_id=-5)),
          "a pack whose id is -5", ["region id -5"], packs=["good", "negative"]),
        d("region-id-2-40", build(rows=[region(1 << 40, name="huge")] + tile(2, 1, 1, 0, raw, 0, region_id=1 << 40)),
          "a pack whose id is 2^40", ["region id 1099511627776"], packs=["good", "huge"]),
        d("tile-coordinates-absurd", build(rows=tile(2, 100, 0, 0, raw, 0) + tile(3, 1, -1, 0, raw, 0)
                                           + tile(4, 1, 0, 1 << 62, raw, 0) + tile(5, -3, 0, 0, raw, 0)
                                           + tile(6, 5, 1 << 40, 0, raw, 0)),
          "tiles at z 100, x -1, y 2^62, z -3 and x 2^40", None,
          accepted="rows no tile path can name are not listed", packs=["good"]),
        d("tile-id-2-40", build(rows=tile(1 << 40, 1, 0, 0, raw, 0)), "a tile whose row id is 2^40",
          ["row id 1099511627776"], packs=["good"], lookup=["packs/good/1/0/0.pbf"]),
        d("membership-dangling", build(rows=[("INSERT INTO region_tiles VALUES (1, 999)", ()),
                                             ("INSERT INTO region_resources VALUES (77, 1)", ())]),
          "memberships of missing tiles and packs", None, accepted="nothing to show for them", packs=["good"]),
    ]


def data_columns():
    raw = open_tile()
    bomb_gzip = gzip.compress(bytes(300_000_000), 9, mtime=0)
    return [
        d("tile-not-zlib", build(rows=tile(2, 1, 0, 0, b"hello, not zlib")), "compressed = 1 over plain bytes",
          ["zlib"], packs=["good"]),
        d("tile-bombs", build(rows=tile(2, 1, 0, 0, BOMB) + tile(3, 1, 0, 1, bomb_gzip)),
          "two tiles that inflate to 300,000,000 bytes, one zlib and one gzip", ["inflated data exceeds"],
          packs=["good"]),
        d("style-zlib-bomb", build(rows=replace_style(BOMB, 1)), "the stored style inflates to 300,000,000 bytes",
          ["inflated data exceeds"], packs=["good"]),
        d("style-deep-nesting", build(rows=replace_style(zlib.compress(b"[" * 100000 + b"]" * 100000), 1)),
          "the stored style is 100000 nested arrays", None, accepted="a style the model refuses shows no sources",
          packs=["good"]),
        d("tile-data-text", build("loose", rows=tile(2, 1, 0, 0, "text, not a blob", 0)),
          "a tile whose data is TEXT", None, accepted="served as its bytes", packs=["good"]),
        d("tile-data-integer", build("loose", rows=tile(2, 1, 0, 0, 12345, 0)), "a tile whose data is an integer",
          None, accepted="served as the integer's text", packs=["good"]),
        d("columns-wrong-types", build("loose", rows=tile(2, "one", "abc", 1.5, raw, "yes", ratio="two")
                                       + tile(3, "one", 0, 0, raw, 0) + tile(4, 1.5, 0, 0, raw, 0)
                                       + tile(5, 1, "abc", 0, raw, 0) + tile(6, 1, 0.5, "y", raw, 0)
                                       + resource(3, None, "style", b"{}") + resource(4, 5, 99, 7)),
          "tiles of the pack at z 'one', z 1.5, x 'abc', x 0.5 and y 'y'; pixel_ratio and compressed as"
          " text; a NULL url, kind 99", None,
          accepted="rows that do not decode are skipped or fail alone", packs=["good"]),
        d("pack-state-hostile", build("loose", loose_state=True, rows=[
            ("INSERT INTO packfs_pack_state VALUES (1, 'exploded', ?, 'many', -5, NULL, 'x')", ("e" * 100000,)),
            ("INSERT INTO packfs_settings VALUES ('ambient_limit', '-5')", ())]),
          "state 'exploded', counts as text and negative, a 100 KB error, ambient limit -5", None,
          accepted="read as inactive with no counts; the ambient limit falls back to 50 MiB", packs=["good"]),
    ]


def open_tile():
    return TILE * 2


def cases():
    assert TEMPLATE and json
    return definitions() + names() + ids_and_coordinates() + data_columns()
