"""Helpers the case modules share: one manifest entry, JSON fragments, deep and giant values."""
import json


def case(kind, path, content, wrong, expect, **extra):
    """One corpus file. `expect`: substrings the error must hold (the field first), or None when
    the input is hostile but must be accepted (clamped, escaped, stored as served): `accepted`
    then says what must happen instead."""
    if isinstance(expect, str):
        expect = [expect]
    entry = dict(kind=kind, file=path, content=content, wrong=wrong, expect=expect)
    entry.update(extra)
    if expect is None:
        assert "accepted" in entry, path + ": an accepted case says what happens instead"
    return entry


def obj(pairs):
    """A JSON object from (key, raw JSON text) pairs, in order (raw text may be invalid JSON)."""
    return "{" + ", ".join(json.dumps(key) + ": " + raw for key, raw in pairs) + "}"


def deep(depth, inner="0"):
    """`depth` nested arrays around `inner`: deeper than any parser's stack should go."""
    return "[" * depth + inner + "]" * depth


def giant(count, item="0"):
    """An array of `count` copies of `item`."""
    return "[" + ",".join([item] * count) + "]"


# Tile URL templates refused wherever `tiles` is read (a style's inline source, a TileJSON): the
# case's name, the template, what is wrong with it, and the words the error holds after the field.
BAD_TEMPLATES = [
    ("file-scheme", "file:///tiles/{z}/{x}/{y}.pbf", "local files", "only http, https and mapbox"),
    ("ftp", "ftp://127.0.0.1/{z}/{x}/{y}.pbf", "ftp", "only http, https and mapbox"),
    ("space-in-host", "http://exa mple.com/{z}/{x}/{y}.pbf", "a space in the host", "space"),
    ("port-65536", "http://127.0.0.1:65536/{z}/{x}/{y}.pbf", "port 65536", "port 65536"),
    ("control-char", "http://127.0.0.1/\u0007{z}/{x}/{y}.pbf", "a BEL byte", "control character"),
]

NFC = "caf\u00e9"
NFD = "cafe\u0301"
LONG = "n" * 300
