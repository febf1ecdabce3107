"""Sprite and glyph responses (sprites/, glyphs/): bodies as a server sends them. PackFS stores
sprite and glyph bytes as served (MapLibre reads them when it renders), so a body that is not a
sprite sheet or a glyph range is accepted and served back byte for byte; what PackFS does decode
is the transfer coding, and a body whose gzip is corrupt or inflates past the body limit fails
the pack naming the URL. `encoding: gzip` bodies are served as the `.gz` sibling (nginx
gzip_static), so they arrive with Content-Encoding: gzip."""
import gzip
import os
import random
import zlib

import cases_databases
from corpus import case, deep

HERE = os.path.dirname(os.path.abspath(__file__))
WORLD = os.path.join(HERE, "..", "world")
# Past the downloader's body limit (256 MiB): a body that inflates to more is refused.
BOMB_SIZE = 270_000_000


def world(path):
    with open(os.path.join(WORLD, path), "rb") as source:
        return source.read()


def gzipped(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def bomb():
    """gzip of BOMB_SIZE zero bytes, compressed a megabyte at a time (about 260 KB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    parts = []
    for _ in range(BOMB_SIZE // len(chunk)):
        parts.append(packer.compress(chunk))
    parts.append(packer.compress(bytes(BOMB_SIZE % len(chunk))))
    parts.append(packer.flush())
    raw = b"".join(parts)
    return raw[:4] + b"\x00\x00\x00\x00" + raw[8:]  # mtime 0: deterministic


STORED = "stored and served byte for byte (it passes the download's content check)"
REFUSED = ("decoded as served; the download's content check refuses it (content_error: the words of "
           "the pack's error), nothing of it stored")


def sprites():
    def sp(name, content, role, wrong, expect, encoding="identity", **extra):
        if expect is None:
            extra["accepted"] = REFUSED if "content_error" in extra else STORED
        return case("sprite", "sprites/" + name, content, wrong, expect, role=role, encoding=encoding, **extra)
    good_json = world("sprites/bright.json")
    png = world("sprites/bright.png")
    return [
        sp("json-not-json.json", b"<html>oops</html>\n", "json", "an HTML page as sprite JSON", None,
           content_error=["expected a sprite index", "HTML text"]),
        sp("json-truncated.json", good_json[:40], "json", "sprite JSON cut short", None, content_error=["expected a sprite index", "JSON text"]),
        sp("json-invalid-utf8.json", b'{"poi-dot": {"x": "\xff"}}', "json", "a 0xFF byte", None, content_error=["expected a sprite index", "bytes of binary"]),
        sp("json-deep-100000.json", deep(100000).encode(), "json", "100000 nested arrays", None, content_error=["expected a sprite index", "JSON text"]),
        sp("json-absurd-numbers.json", b'{"poi-dot": {"x": -1e308, "y": 1e308, "width": -5, "height": 1e400, '
           b'"pixelRatio": 0}}', "json@2x", "negative, huge and unrepresentable numbers", None,
           content_error=["expected a sprite index", "JSON text"]),
        sp("png-not-png.png", b"GIF89a this is not a png\n", "png", "a GIF header as the sprite image", None,
           content_error=["expected a sprite image (PNG)", "a GIF image"]),
        sp("png-truncated.png", png[:20], "png", "the PNG signature and half a header", None),
        sp("png-empty.png", b"", "png@2x", "an empty body", None, content_error=["expected a sprite image (PNG)", "an empty body"]),
        sp("json-gzip-corrupt.json.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage after a gzip header",
           "json", "a gzip header followed by bytes no inflater takes", ["bad response body"], encoding="gzip"),
        sp("png-gzip-truncated.png.gz", gzipped(png)[:60], "png", "a gzip member cut short",
           ["bad response body"], encoding="gzip"),
        sp("json-gzip-bomb.json.gz", bomb(), "json", "%d zero bytes in a 260 KB gzip body" % BOMB_SIZE,
           ["exceeds"], encoding="gzip"),
    ]


def glyphs():
    def gl(name, content, wrong, expect, encoding="identity", **extra):
        if expect is None:
            extra["accepted"] = REFUSED if "content_error" in extra else STORED
        return case("glyph", "glyphs/" + name, content, wrong, expect, role="0-255", encoding=encoding, **extra)
    noise = random.Random(10).randbytes(3000)
    real = world("fonts/Noto Sans Regular/0-255.pbf")
    return [
        gl("empty.pbf", b"", "an empty range", None),
        gl("noise.pbf", noise, "3000 random bytes", None, content_error=["expected a glyph range", "3000 bytes of binary"]),
        gl("truncated-varint.pbf", b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "a length varint that never ends",
           None, content_error=["expected a glyph range", "11 bytes of binary"]),
        gl("truncated.pbf", real[: len(real) // 3], "a third of a real range", None, content_error=["expected a glyph range", "bytes of binary"]),
        gl("html.pbf", b"<html><body>404</body></html>", "an error page with status 200", None,
           content_error=["expected a glyph range", "HTML text"]),
        gl("gzip-corrupt.pbf.gz", gzipped(real)[:-8] + b"\x00" * 8, "a gzip member with a wrong CRC and length",
           ["bad response body"], encoding="gzip"),
        gl("gzip-not-gzip.pbf.gz", b"plain bytes labelled gzip", "plain bytes sent as gzip",
           ["bad response body"], encoding="gzip"),
        gl("gzip-small-bomb.pbf.gz", gzipped(bytes(8 << 20)), "8 MiB of zeros in an 8 KB gzip body", None,
           encoding="gzip", stored_size=8 << 20,
           content_error=["expected a glyph range", "8388608 bytes of binary"]),
    ]


def cases():
    return sprites() + glyphs() + cases_databases.cases()
