"""Region files (regions/), pack names (names/names.json) and GeoJSON geometries (geojson/)."""
import json

from corpus import LONG, NFC, NFD, case, deep, giant, obj

STYLE = '"{base}/styles/bright.json"'
GOOD = [("style", STYLE), ("bounds", "[24.93, 60.16, 24.96, 60.18]"), ("minzoom", "0"), ("maxzoom", "14")]


def region(drop=(), **raw):
    """The good region file with fields replaced (raw JSON text), dropped or added."""
    pairs = [(key, raw.pop(key, value)) for key, value in GOOD if key not in drop]
    return obj(pairs + list(raw.items())) + "\n"


def styled(url):
    return region(style=json.dumps(url))


def r(name, content, wrong, expect, **extra):
    return case("region", "regions/" + name + ".json", content, wrong, expect, **extra)


def not_json():
    good = region()
    return [
        r("truncated-object", good[:60], "stops in the middle of bounds", "not valid JSON"),
        r("truncated-string", '{"style": "http://127.0', "stops inside a string", "not valid JSON"),
        r("empty", "", "no bytes at all", "not valid JSON", mount_expect=["empty region file"]),
        r("whitespace-only", " \n\t\n", "only whitespace", "not valid JSON"),
        r("top-array", "[1, 2, 3]\n", "an array, not an object", "not a JSON object"),
        r("top-string", '"helsinki"\n', "a string, not an object", "not a JSON object"),
        r("top-null", "null\n", "null, not an object", "not a JSON object"),
        r("top-1e400", "1e400\n", "a number no double holds", "1e400"),
        r("trailing-garbage", good.strip() + " x\n", "text after the object", "not valid JSON"),
        r("two-objects", good.strip() + good, "two objects in one file", "not valid JSON"),
        r("nan-literal", region(bounds="[NaN, 60.16, 24.96, 60.18]"), "NaN is not JSON", "not valid JSON"),
        r("infinity-literal", region(maxzoom="Infinity"), "Infinity is not JSON", "not valid JSON"),
        r("bounds-1e400", region(bounds="[1e400, 60.16, 24.96, 60.18]"), "1e400 overflows a double", "1e400"),
        r("minzoom-minus-1e400", region(minzoom="-1e400"), "-1e400 overflows a double", "-1e400"),
        r("invalid-utf8", region().replace("bright", "br\udcffight").encode("utf-8", "surrogateescape"),
          "a 0xFF byte inside the style string", ["not valid JSON", "UTF-8"]),
        r("lone-surrogate", region(style='"{base}/\\ud800.json"'), "an unpaired UTF-16 surrogate escape",
          ["not valid JSON", "surrogate"]),
        r("metadata-deep-100000", region(metadata=deep(100000)), "100000 nested arrays in metadata",
          ["not valid JSON", "nested"]),
        r("unclosed-deep-100000", region().rstrip()[:-1] + ', "metadata": ' + "[" * 100000,
          "100000 arrays opened, none closed", "not valid JSON"),
    ]


def style_url():
    bad = [
        ("style-missing", None, "no style", ["style", "missing"]),
        ("style-empty", "", "an empty style URL", ["style", "scheme"]),
        ("style-file-scheme", "file:///etc/passwd", "a local file", ["style", "scheme"]),
        ("style-no-scheme", "styles/bright.json", "a relative path", ["style", "scheme"]),
        ("style-scheme-relative", "//127.0.0.1:8181/styles/bright.json", "no scheme", ["style", "scheme"]),
        ("style-ftp", "ftp://127.0.0.1/styles/bright.json", "a scheme PackFS never fetches", ["style", "scheme"]),
        ("style-javascript", "javascript:alert(1)", "a script URL", ["style", "scheme"]),
        ("style-no-host", "http://", "nothing after the scheme", ["style", "host"]),
        ("style-port-only", "http://:8181/styles/bright.json", "a port without a host", ["style", "host"]),
        ("style-userinfo-only", "http://user@/styles/bright.json", "user info without a host", ["style", "host"]),
        ("style-backslashes", "http:\\\\127.0.0.1\\styles\\bright.json", "backslashes for slashes",
         ["style", "host"]),
        ("style-space-in-host", "http://exa mple.com/styles/bright.json", "a space in the host",
         ["style", "space"]),
        ("style-space-in-path", "http://127.0.0.1:8181/styles/my style.json", "a space in the path",
         ["style", "space"]),
        ("style-tab", "http://127.0.0.1:8181/styles/\tbright.json", "a tab", ["style", "control character"]),
        ("style-newline", "http://127.0.0.1:8181/styles/bright.json\n", "a trailing newline",
         ["style", "control character"]),
        ("style-nul", "http://127.0.0.1:8181/\u0000/bright.json", "a NUL byte", ["style", "control character"]),
        ("style-del", "http://127.0.0.1:8181/\u007f.json", "a DEL byte", ["style", "control character"]),
        ("style-port-65536", "http://127.0.0.1:65536/styles/bright.json", "port above 65535",
         ["style", "port 65536"]),
        ("style-port-huge", "http://127.0.0.1:99999999999999999999999/s.json", "a port no integer holds",
         ["style", "port"]),
        ("style-port-negative", "http://127.0.0.1:-1/styles/bright.json", "a negative port", ["style", "port"]),
        ("style-port-letters", "http://127.0.0.1:80a/styles/bright.json", "letters in the port", ["style", "port"]),
        ("style-port-zero", "http://127.0.0.1:0/styles/bright.json", "port 0", ["style", "port 0"]),
        ("style-ipv6-unclosed", "http://[::1/styles/bright.json", "an IPv6 literal without ]", ["style", "host"]),
        ("style-ipv6-junk", "http://[zz::1]/styles/bright.json", "letters no IPv6 address has", ["style", "host"]),
        ("style-percent-host", "http://exa%zzmple.com/styles/bright.json", "a bad percent escape in the host",
         ["style", "host"]),
        ("style-bracket-host", "http://exa<mple>.com/s.json", "angle brackets in the host", ["style", "host"]),
    ]
    out = []
    for name, url, wrong, expect in bad:
        content = region(drop=("style",)) if url is None else styled(url)
        out.append(r(name, content, wrong, expect))
    out.append(r("style-null", region(style="null"), "style is null", ["style", "missing"]))
    out.append(r("style-number", region(style="5"), "style is a number", ["style", "must be a string"]))
    out.append(r("style-array", region(style="[" + STYLE + "]"), "style is an array", ["style", "must be a string"]))
    out.append(r("style-duplicate-key", region()[:-2] + ', "style": 5}\n', "style given twice, the last a number",
                 ["style", "must be a string"]))
    return out


def bounds():
    four = ["bounds", "4 numbers"]
    cases = [
        ("lat-91", "[24.93, 60.16, 24.96, 91]", "north latitude 91", ["bounds", "latitude 91"]),
        ("lat-minus-90.5", "[24.93, -90.5, 24.96, 60.18]", "south latitude -90.5", ["bounds", "latitude -90.5"]),
        ("lon-181", "[24.93, 60.16, 181, 60.18]", "east longitude 181", ["bounds", "longitude 181"]),
        ("lon-1e308", "[-1e308, 60.16, 24.96, 60.18]", "west longitude -1e308", ["bounds", "longitude"]),
        ("lat-1e308", "[24.93, 60.16, 24.96, 1e308]", "north latitude 1e308", ["bounds", "latitude"]),
        ("west-of-east", "[24.96, 60.16, 24.93, 60.18]", "west > east", ["bounds", "west"]),
        ("south-of-north", "[24.93, 60.18, 24.96, 60.16]", "south > north", ["bounds", "south"]),
        ("three-numbers", "[24.93, 60.16, 24.96]", "three numbers", four),
        ("five-numbers", "[24.93, 60.16, 24.96, 60.18, 1]", "five numbers", four),
        ("empty", "[]", "no numbers", four),
        ("strings", '["24.93", "60.16", "24.96", "60.18"]', "numbers as strings", four),
        ("null-element", "[null, 60.16, 24.96, 60.18]", "a null in place of a number", four),
        ("object", '{"west": 24.93, "south": 60.16, "east": 24.96, "north": 60.18}', "an object", four),
        ("nested", "[[24.93, 60.16], [24.96, 60.18]]", "two pairs", four),
        ("booleans", "[true, false, true, false]", "booleans", four),
        ("giant-array", giant(50000, "1.5"), "50000 numbers", four),
        ("huge-integers", "[123456789012345678901234567890, 0, 1, 1]", "a 30-digit longitude",
         ["bounds", "longitude"]),
    ]
    return [r("bounds-" + name, region(bounds=raw), wrong, expect) for name, raw, wrong, expect in cases]


def zooms_and_flags():
    cases = [
        ("minzoom-negative", dict(minzoom="-1"), "minzoom -1", ["minzoom", "outside 0-24"]),
        ("minzoom-25", dict(minzoom="25"), "minzoom 25", ["minzoom", "outside 0-24"]),
        ("maxzoom-255", dict(maxzoom="255"), "maxzoom 255", ["maxzoom", "outside 0-24"]),
        ("maxzoom-1e308", dict(maxzoom="1e308"), "maxzoom 1e308", ["maxzoom", "outside 0-24"]),
        ("maxzoom-tiny-negative", dict(maxzoom="-1e-300"), "maxzoom just below 0", ["maxzoom", "outside 0-24"]),
        ("maxzoom-30-digits", dict(maxzoom="123456789012345678901234567890"), "a 30-digit maxzoom",
         ["maxzoom", "outside 0-24"]),
        ("minzoom-above-maxzoom", dict(minzoom="10", maxzoom="5"), "minzoom 10 > maxzoom 5",
         ["minzoom", "above maxzoom"]),
        ("minzoom-string", dict(minzoom='"3"'), "a zoom as a string", ["minzoom", "must be a number"]),
        ("maxzoom-bool", dict(maxzoom="true"), "a zoom as a boolean", ["maxzoom", "must be a number"]),
        ("maxzoom-array", dict(maxzoom="[14]"), "a zoom in an array", ["maxzoom", "must be a number"]),
        ("pixel-ratio-zero", dict(pixel_ratio="0"), "pixel ratio 0", ["pixel_ratio", "not positive"]),
        ("pixel-ratio-negative", dict(pixel_ratio="-2"), "pixel ratio -2", ["pixel_ratio", "not positive"]),
        ("pixel-ratio-string", dict(pixel_ratio='"2x"'), "pixel ratio as text", ["pixel_ratio", "must be a number"]),
        ("ideographs-string", dict(include_ideographs='"yes"'), "a flag as a string",
         ["include_ideographs", "true or false"]),
        ("ideographs-number", dict(include_ideographs="1"), "a flag as a number",
         ["include_ideographs", "true or false"]),
        ("tile-storage-unknown", dict(tile_storage='"raw"'), "a tile storage PackFS does not know",
         ["tile_storage", "must be \"compressed\" or \"inflated\""]),
        ("tile-storage-bool", dict(tile_storage="true"), "a tile storage as a boolean",
         ["tile_storage", "not a boolean"]),
        ("unknown-key", dict(max_zoom="10"), "MapLibre's key in a PackFS file", ["max_zoom", "unknown key"]),
        ("unknown-key-nul", {"style\u0000": STYLE}, "a key with a NUL", ["unknown key"]),
        ("bounds-and-geometry", dict(geometry='"Polygon"'), "both bounds and geometry", ["bounds", "both"]),
    ]
    out = [r(name, region(**fields), wrong, expect) for name, fields, wrong, expect in cases]
    maplibre = obj([("style_url", STYLE), ("bounds", "[100, 24.93, 101, 24.96]"), ("min_zoom", "0")])
    out += [
        r("neither-bounds-nor-geometry", region(drop=("bounds",)), "no area", ["bounds", "missing"]),
        r("geometry-not-object", region(drop=("bounds",), geometry='"Polygon"'), "geometry is a string",
          ["geometry", "GeoJSON object"]),
        r("maplibre-with-minzoom", obj([("style_url", STYLE), ("bounds", "[60.16, 24.93, 60.18, 24.96]"),
                                       ("minzoom", "0")]), "MapLibre spelling with PackFS's minzoom",
          ["minzoom", "unknown key"]),
        r("maplibre-latitude-100", maplibre, "MapLibre order, south latitude 100", ["bounds", "latitude 100"]),
    ]
    return out


def names():
    entries = [
        ("../x", "a parent directory and a slash", "contains '/'"),
        ("a/b", "a slash", "contains '/'"),
        ("x\u0000y", "a NUL byte", "contains the control character U+0000"),
        ("line\nbreak", "a newline", "contains the control character U+000A"),
        ("tab\there", "a tab", "contains the control character U+0009"),
        ("del\u007f", "DEL", "contains the control character U+007F"),
        (LONG, "300 bytes", "300 bytes; at most 248"),
        ("\u00e9" * 128, "256 bytes of two-byte characters", "256 bytes; at most 248"),
        ("a" * 249, "249 bytes: x.region would not fit a file name", "249 bytes; at most 248"),
        (".hidden", "a dot file", "starts with '.'"),
        (".", "the directory itself", "starts with '.'"),
        ("..", "the parent directory", "starts with '.'"),
        ("", "empty", "empty"),
        ("x.region", "would show as x's region file", "ends in .region"),
        ("x.error", "would show as x's error file", "ends in .error"),
    ]
    listing = [dict(name=name, wrong=wrong, expect=[expect]) for name, wrong, expect in entries]
    pair = dict(first=NFC, second=NFD, wrong="the same name in NFC and then NFD",
                expect=["already exists", "Unicode normalisation"])
    content = json.dumps(dict(invalid=listing, normalisation=pair), indent=1, ensure_ascii=True) + "\n"
    return [case("name", "names/names.json", content, "pack names with path tricks (one entry each)",
                 None, accepted="each entry is a name refused with its expect; see invalid and normalisation",
                 entries=len(listing) + 1)]


def cases():
    return not_json() + style_url() + bounds() + zooms_and_flags() + names()
