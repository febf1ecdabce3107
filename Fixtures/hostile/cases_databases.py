"""Database files (databases/), built with Python's sqlite3 and committed (a few KB each).

`refused` files are no offline database PackFS can open: `packfs mount` (and `packfs list`, unless
`lists`: a file read-only commands can still read) fails with the expected words and leaves the
file byte-identical. The others open: their contents are hostile (wrong column types, absurd ids
and coordinates, zlib bombs, names with path tricks), and reading every pack, every tree entry
and every file gives data or a clean error, never a crash."""
import json
import os
import sqlite3
import tempfile
import zlib

from corpus import LONG, NFC, NFD, case

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "Tests", "PackStoreTests", "Reference", "offline_schema_v6.sql")
TEMPLATE = "http://127.0.0.1:9/tiles/land/{z}/{x}/{y}.pbf"
STYLE_URL = "http://127.0.0.1:9/styles/hostile.json"
STYLE = {"version": 8, "sources": {"land": {"type": "vector", "tiles": [TEMPLATE], "maxzoom": 4}}, "layers": []}
DEFINITION = {"style_url": STYLE_URL, "min_zoom": 0.0, "max_zoom": 1.0, "pixel_ratio": 1.0,
              "include_ideographs": False, "bounds": [-85.0, -180.0, 85.0, 180.0]}
# Schema v6 with every column untyped and nullable: what an app (or an attacker) can write.
LOOSE = """
CREATE TABLE resources (id INTEGER PRIMARY KEY, url, kind, expires, modified, etag, data, compressed,
  accessed, must_revalidate);
CREATE TABLE tiles (id INTEGER PRIMARY KEY, url_template, pixel_ratio, z, x, y, expires, modified, etag,
  data, compressed, accessed, must_revalidate);
CREATE TABLE regions (id INTEGER PRIMARY KEY, definition, description);
CREATE TABLE region_resources (region_id, resource_id);
CREATE TABLE region_tiles (region_id, tile_id);
"""
BOMB = zlib.compress(bytes(300_000_000), 9)
# Tile bytes: served, never parsed, so a few hundred bytes keep each file at a few pages.
TILE = b"\x1a\x0c\x0a\x04land\x78\x02" * 20


def statements(text):
    lines = [line.split("--")[0] for line in text.splitlines()]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


def database_bytes(fill, version):
    """The bytes of a database of small pages that `fill(db)` filled, with this user_version."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "x.db")
        db = sqlite3.connect(path)
        db.execute("PRAGMA page_size = 1024")  # small files; SQLite reads any page size
        fill(db)
        db.execute("PRAGMA user_version = %d" % version)
        db.commit()
        db.close()
        with open(path, "rb") as result:
            return result.read()


def build(schema="v6", version=6, rows=(), loose_state=False):
    """The bytes of a database: a schema, user_version, the good pack, then `rows` (SQL, args)."""
    def fill(db):
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if schema == "v6":
            with open(SCHEMA, encoding="utf-8") as source:
                schema_text = source.read()
        else:
            schema_text = LOOSE
        for statement in statements(schema_text):
            db.execute(statement)
        if loose_state:
            db.execute("CREATE TABLE packfs_pack_state (region_id PRIMARY KEY, state, error, required_resources,"
                       " required_tiles, required_is_precise, updated)")
            db.execute("CREATE TABLE packfs_settings (key PRIMARY KEY, value)")
        good_pack(db)
        for sql, args in rows:
            db.execute(sql, args)
    return database_bytes(fill, version)


def good_pack(db):
    tile = TILE
    db.execute("INSERT INTO regions (id, definition, description) VALUES (1, ?, ?)",
               (json.dumps(DEFINITION), json.dumps({"name": "good"}).encode()))
    db.execute("INSERT INTO resources (id, url, kind, data, compressed, accessed, must_revalidate)"
               " VALUES (1, ?, 1, ?, 0, 0, 0)", (STYLE_URL, json.dumps(STYLE).encode()))
    db.execute("INSERT INTO tiles (id, url_template, pixel_ratio, z, x, y, data, compressed, accessed,"
               " must_revalidate) VALUES (1, ?, 1, 0, 0, 0, ?, 1, 0, 0)", (TEMPLATE, zlib.compress(tile)))
    db.execute("INSERT INTO region_resources VALUES (1, 1)")
    db.execute("INSERT INTO region_tiles VALUES (1, 1)")


def region(id, definition=None, name=None, description=None):
    text = json.dumps(definition or DEFINITION)
    blob = description if description is not None else json.dumps({"name": name}).encode()
    return ("INSERT INTO regions (id, definition, description) VALUES (?, ?, ?)", (id, text, blob))


def tile(id, z, x, y, data, compressed=1, template=TEMPLATE, ratio=1, region_id=1):
    return [("INSERT INTO tiles (id, url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES"
             " (?, ?, ?, ?, ?, ?, ?, ?, 0)", (id, template, ratio, z, x, y, data, compressed)),
            ("INSERT INTO region_tiles VALUES (?, ?)", (region_id, id))]


def resource(id, url, kind, data, compressed=0, region_id=1):
    return [("INSERT INTO resources (id, url, kind, data, compressed, accessed) VALUES (?, ?, ?, ?, ?, 0)",
             (id, url, kind, data, compressed)),
            ("INSERT INTO region_resources VALUES (?, ?)", (region_id, id))]


def replace_style(data, compressed=0):
    return [("UPDATE resources SET data = ?, compressed = ? WHERE id = 1", (data, compressed))]


def d(name, content, wrong, expect, refused=False, **extra):
    return case("database", "databases/" + name + ".db", content, wrong, expect, refused=refused, **extra)


def refused():
    good = build()
    page_size_bad = bytearray(good)
    page_size_bad[16:18] = (1000).to_bytes(2, "big")
    migrated_v5 = build(version=5)
    return [
        d("not-sqlite", b"PackFS? no: a text file named .db\n", "plain text", "not an SQLite database", True),
        d("html-page", b"<!DOCTYPE html><html><body>Not Found</body></html>\n", "a saved error page",
          "not an SQLite database", True),
        d("gzipped-database", zlib.compress(good), "a compressed database", "not an SQLite database", True),
        d("magic-only", b"SQLite format 3\x00", "the 16-byte magic and nothing else", "damaged", True),
        d("truncated-100", good[:100], "the header only", "damaged", True),
        d("truncated-half", good[: len(good) // 2], "cut in the middle of its pages", "damaged", True),
        d("truncated-one-byte", good[:-1], "one byte short", "damaged", True),
        d("zero-pages", b"SQLite format 3\x00" + bytes(4080), "magic, then zeros", "damaged", True),
        d("page-size-1000", bytes(page_size_bad), "a page size that is no power of two", "damaged", True),
        d("header-then-noise", good[:100] + bytes((i * 37) % 251 for i in range(4000)),
          "a valid header over noise pages", "damaged", True),
        d("version-7", build(version=7), "schema version 7", "version 7", True),
        d("version-1", build(version=1), "schema version 1", "version 1", True),
        d("version-max", build(version=2147483647), "schema version 2^31 - 1", "version 2147483647", True),
        d("version-negative", build(version=-1), "schema version -1", "not an offline database", True),
        d("no-tables-version-6", b"", "version 6 without tables", "not an offline database", True,
          generated="built below"),
        d("other-tables", b"", "an SQLite file of another application", "not an offline database", True,
          generated="built below"),
        d("missing-region-tiles", b"", "no region_tiles table", "region_tiles", True, generated="built below"),
        d("v5-already-migrated", migrated_v5, "version 5 with version 6's must_revalidate columns",
          "duplicate column", True, lists=True),
    ]


def plain(sql_statements, version=6):
    """The bytes of a database of `sql_statements` alone (no schema, no pack)."""
    def fill(db):
        for statement in sql_statements:
            db.execute(statement)
    return database_bytes(fill, version)


def fill_plain(entries):
    with open(SCHEMA, encoding="utf-8") as source:
        v6 = statements(source.read())
    bodies = {
        "no-tables-version-6": plain(["CREATE TABLE t (x)", "DROP TABLE t"]),
        "other-tables": plain(["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"], version=0),
        "missing-region-tiles": plain([s for s in v6 if "region_tiles" not in s]),
    }
    for entry in entries:
        stem = os.path.basename(entry["file"])[:-3]
        if stem in bodies:
            entry["content"] = bodies[stem]
            del entry["generated"]
    return entries


def cases():
    import cases_databases_open
    return fill_plain(refused()) + cases_databases_open.cases()
