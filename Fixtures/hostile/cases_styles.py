"""Styles (styles/) and TileJSON documents (tilejson/). A style is read from
`{base}/hostile/styles/<file>`; a TileJSON is the document of source `openmaptiles` of a style that
names `{base}/hostile/tilejson/<file>` (the tests make that style). Errors name the document's URL
and the field."""
import copy
import json

from corpus import BAD_TEMPLATES, LONG, NFC, NFD, case, deep, giant

BASE = {
    "version": 8,
    "sources": {
        "openmaptiles": {"type": "vector", "url": "{base}/tiles/helsinki.json"},
        "land": {"type": "vector", "tiles": ["{base}/tiles/land/{z}/{x}/{y}.pbf"], "maxzoom": 4},
    },
    "sprite": "{base}/sprites/bright",
    "glyphs": "{base}/fonts/{fontstack}/{range}.pbf",
    "layers": [
        {"id": "land", "type": "fill", "source": "land", "source-layer": "land"},
        {"id": "labels", "type": "symbol", "source": "openmaptiles", "source-layer": "place",
         "layout": {"text-field": "{name}", "text-font": ["Noto Sans Regular"]}},
    ],
}


def text(style):
    """Indented like a hand-written style; compact when big, so the corpus stays small."""
    indented = json.dumps(style, indent=1, ensure_ascii=False) + "\n"
    return indented if len(indented) < 20000 else json.dumps(style, ensure_ascii=False, separators=(",", ":"))


def edited(change):
    style = copy.deepcopy(BASE)
    change(style)
    return text(style)


def source(name, **fields):
    """The base style with source `name` replaced by `fields`."""
    def change(style):
        style["sources"][name] = fields
    return edited(change)


def land(**fields):
    """The base style with fields of the inline source `land` replaced."""
    def change(style):
        style["sources"]["land"].update(fields)
    return edited(change)


def member(key, value):
    def change(style):
        style[key] = value
    return edited(change)


def s(name, content, wrong, expect, **extra):
    return case("style", "styles/" + name + ".json", content, wrong, expect, **extra)


LAND = "{base}/tiles/land/{z}/{x}/{y}.pbf"


def broken_documents():
    good = text(BASE)
    return [
        s("not-json", "this is not a style\n", "plain text", "style is not valid JSON"),
        s("truncated", good[:200], "stops inside the sources", "style is not valid JSON"),
        s("empty", "", "no bytes", "style is not valid JSON"),
        s("top-array", "[" + good + "]", "an array around the style", "not a JSON object"),
        s("invalid-utf8", good.replace("labels", "lab\udcfeels").encode("utf-8", "surrogateescape"),
          "a 0xFE byte in a layer id", ["not valid JSON", "UTF-8"]),
        s("layers-deep-100000", member("layers", "X").replace('"X"', deep(100000)), "100000 nested arrays",
          ["not valid JSON", "nested"]),
        s("zoom-1e400", land(maxzoom=4).replace('"maxzoom": 4', '"maxzoom": 1e400'), "1e400 overflows a double",
          "1e400"),
    ]


def bad_sources():
    url = ["sources.openmaptiles.url"]
    return [
        s("sources-array", member("sources", [1, 2]), "sources is an array", ["sources", "must be an object"]),
        s("sources-string", member("sources", "land"), "sources is a string", ["sources", "must be an object"]),
        s("source-number", member("sources", {"land": 5}), "a source that is a number",
          ["sources.land.type", "missing"]),
        s("source-no-type", source("land", tiles=[LAND]), "no type", ["sources.land.type", "missing"]),
        s("source-type-number", source("land", type=7, tiles=[LAND]), "type is a number",
          ["sources.land.type", "missing"]),
        s("tiled-no-url-no-tiles", source("land", type="vector"), "neither url nor tiles",
          ["sources.land.tiles", "needs url or tiles"]),
        s("tiles-string", land(tiles=LAND), "tiles is a string", ["sources.land.tiles", "array of URL templates"]),
        s("tiles-numbers", land(tiles=[1, 2]), "templates that are numbers", ["sources.land.tiles", "array"]),
        s("tiles-empty", land(tiles=[]), "no template", ["sources.land.tiles", "needs url or tiles"]),
    ] + [
        s("tiles-" + name, land(tiles=[template]), wrong, ["sources.land.tiles", words])
        for name, template, wrong, words in BAD_TEMPLATES
    ] + [
        s("url-number", source("openmaptiles", type="vector", url=5), "url is a number", url + ["must be a URL"]),
        s("url-file-scheme", source("openmaptiles", type="vector", url="file:///etc/passwd"), "a local file",
          url + ["only http, https and mapbox"]),
        s("url-javascript", source("openmaptiles", type="vector", url="javascript:alert(1)"), "a script URL",
          url + ["only http, https and mapbox"]),
        s("url-empty", source("openmaptiles", type="vector", url=""), "an empty URL", url + ["empty URL"]),
        s("url-port-99999", source("openmaptiles", type="vector", url="http://127.0.0.1:99999/t.json"),
          "port 99999", url + ["port 99999"]),
        s("url-newline-in-host", source("openmaptiles", type="vector", url="http://127.0.0.1\n.evil/t.json"),
          "a newline in the host", url + ["control character"]),
        s("geojson-data-number", source("trails", type="geojson", data=5), "data is a number",
          ["sources.trails.data", "must be a URL or GeoJSON"]),
        s("geojson-data-file", source("trails", type="geojson", data="file:///etc/passwd"), "a local file",
          ["sources.trails.data", "only http, https and mapbox"]),
        s("image-no-url", source("overlay", type="image", coordinates=[[0, 1], [1, 1], [1, 0], [0, 0]]),
          "an image source without url", ["sources.overlay.url", "must be a URL"]),
        s("sources-65", member("sources", {"s%02d" % i: {"type": "vector", "tiles": [LAND.replace(
            "land", "land%d" % i)]} for i in range(65)}), "65 tiled sources", ["sources", "at most 64"]),
        s("source-id-300-bytes", member("sources", {LONG: {"type": "vector", "tiles": [LAND]}}),
          "a source id of 300 bytes", ["sources.", "at most 255"]),
        s("sources-10000-then-twins", member("sources", dict([("s%d" % i, {"type": "video"}) for i in range(10000)]
                                                         + [(NFC, {"type": "video"}), (NFD, {"type": "video"})])),
          "10000 sources, then two ids that differ only in normalisation", ["sources", "Unicode normalisation"]),
        s("sprites-10000-then-duplicate", member("sprite", [{"id": "s%d" % i, "url": "{base}/sprites/bright"}
                                                            for i in range(9999)] + [{"id": "s0", "url": "x"}]),
          "10000 sprite sheets, the last repeating the first id", ["sprite[9999]", "duplicate id"]),
        s("source-ids-nfc-nfd", member("sources", {NFC: {"type": "vector", "tiles": [LAND]},
                                                   NFD: {"type": "vector", "tiles": [LAND + "?v=2"]}}),
          "two source ids that differ only in Unicode normalisation", ["sources", "Unicode normalisation"]),
    ]


def bad_fields():
    return [
        s("tilesize-zero", land(tileSize=0), "tileSize 0", ["sources.land.tileSize", "1 to 65535"]),
        s("tilesize-negative", land(tileSize=-512), "tileSize -512", ["sources.land.tileSize", "1 to 65535"]),
        s("tilesize-1e9", land(tileSize=1e9), "tileSize 1e9", ["sources.land.tileSize", "1 to 65535"]),
        s("tilesize-half", land(tileSize=0.5), "tileSize 0.5", ["sources.land.tileSize", "1 to 65535"]),
        s("tilesize-string", land(tileSize="512"), "tileSize as text", ["sources.land.tileSize", "1 to 65535"]),
        s("minzoom-256", land(minzoom=256), "minzoom 256", ["sources.land.minzoom", "0 to 255"]),
        s("maxzoom-negative", land(maxzoom=-1), "maxzoom -1", ["sources.land.maxzoom", "0 to 255"]),
        s("maxzoom-string", land(maxzoom="4"), "maxzoom as text", ["sources.land.maxzoom", "0 to 255"]),
        s("bounds-inverted", land(bounds=[-10, 50, 10, 40]), "south above north", ["sources.land.bounds", "south"]),
        s("bounds-three", land(bounds=[-10, 40, 10]), "three numbers", ["sources.land.bounds"]),
        s("bounds-strings", land(bounds=["a", "b", "c", "d"]), "strings", ["sources.land.bounds", "four numbers"]),
        s("scheme-number", land(scheme=1), "scheme is a number", ["sources.land.scheme"]),
        s("attribution-number", land(attribution=5), "attribution is a number", ["sources.land.attribution"]),
        s("sprite-number", member("sprite", 5), "sprite is a number", ["sprite", "must be a URL or an array"]),
        s("sprite-file-scheme", member("sprite", "file:///sprites/x"), "a local file",
          ["sprite", "only http, https and mapbox"]),
        s("sprite-item-no-id", member("sprite", [{"url": "{base}/sprites/bright"}]), "an entry without id",
          ["sprite[0]", "string id and url"]),
        s("sprite-duplicate-ids", member("sprite", [{"id": "a", "url": "{base}/sprites/bright"}] * 2),
          "the same id twice", ["sprite[1]", "duplicate id"]),
        s("sprite-ids-nfc-nfd", member("sprite", [{"id": NFC, "url": "{base}/sprites/bright"},
                                                  {"id": NFD, "url": "{base}/sprites/bright"}]),
          "two ids that differ only in Unicode normalisation", ["sprite[1]", "duplicate id"]),
        s("sprite-id-300-bytes", member("sprite", [{"id": LONG, "url": "{base}/sprites/bright"}]),
          "an id of 300 bytes", ["sprite[0].id", "at most 255"]),
        s("glyphs-number", member("glyphs", 5), "glyphs is a number", ["glyphs", "must be a URL template"]),
        s("glyphs-file-scheme", member("glyphs", "file:///fonts/{fontstack}/{range}.pbf"), "local files",
          ["glyphs", "only http, https and mapbox"]),
        s("glyphs-port-65536", member("glyphs", "http://127.0.0.1:65536/{fontstack}/{range}.pbf"), "port 65536",
          ["glyphs", "port 65536"]),
        s("text-font-300-bytes", edited(lambda st: st["layers"][1]["layout"].update({"text-font": [LONG]})),
          "a font name of 300 bytes", ["text-font", "at most 255"]),
        s("font-stacks-300", edited(lambda st: st["layers"].extend(
            {"id": "l%d" % i, "type": "symbol", "layout": {"text-field": "x", "text-font": ["Font %d" % i]}}
            for i in range(300))), "300 distinct font stacks (29,100 glyph files)",
          ["layers", "font stacks"]),
    ]


def accepted():
    def nested_font(st):
        value = ["literal", ["Noto Sans Regular"]]
        for _ in range(400):
            value = ["coalesce", value]
        st["layers"][1]["layout"]["text-font"] = value
    inline = {"type": "vector", "tiles": [LAND], "maxzoom": 4}
    return [
        s("text-font-400-deep", edited(nested_font), "a text-font expression 400 levels deep", None,
          accepted="its one literal stack is fetched"),
        s("source-id-dotdot-slash", member("sources", {"../x": inline}), "a source id ../x", None,
          accepted="shown as sources/..%2Fx", tree="sources/..%2Fx/0/0/0.pbf"),
        s("source-id-slash", member("sources", {"a/b": inline}), "a source id a/b", None,
          accepted="shown as sources/a%2Fb", tree="sources/a%2Fb/0/0/0.pbf"),
        s("source-id-nul", member("sources", {"a\u0000b": inline}), "a source id with a NUL", None,
          accepted="shown as sources/a%00b", tree="sources/a%00b/0/0/0.pbf"),
        s("source-id-dotdot", member("sources", {"..": inline}), "a source id ..", None,
          accepted="shown as sources/%2E%2E", tree="sources/%2E%2E/0/0/0.pbf"),
        s("unknown-source-type", source("video", type="hologram", urls=["x"]), "a source type MapLibre skips",
          None, accepted="skipped, as MapLibre skips it"),
        s("layers-not-array", member("layers", {"a": 1}), "layers is an object",
          "not a MapLibre style (no \"layers\")"),
        s("bounds-beyond-world", land(bounds=[-200, -100, 200, 100]), "bounds beyond the world", None,
          accepted="clamped to the world, as MapLibre clamps"),
        s("sources-10000-video", member("sources", {"s%d" % i: {"type": "video", "urls": []} for i in range(10000)}),
          "10000 sources of a type with nothing to store", None, accepted="read in linear time; nothing to store"),
        s("giant-layers-array", member("layers", json.loads(giant(10000, '{"id": "x", "type": "fill"}'))),
          "10000 layers", None, accepted="read; none names a font"),
    ]


def tilejson_cases():
    good = open_tilejson()

    def tj(name, content, wrong, expect, **extra):
        if not isinstance(content, (str, bytes)):
            content = json.dumps(content, separators=(",", ":")) + "\n"
        return case("tilejson", "tilejson/" + name + ".json", content, wrong, expect, **extra)

    def with_fields(**fields):
        document = dict(good)
        document.update(fields)
        return document

    template = good["tiles"][0]
    return [
        tj("not-json", "<html>Not Found</html>\n", "an HTML error page", "TileJSON is not valid JSON"),
        tj("truncated", json.dumps(good)[:50], "stops inside tiles", "TileJSON is not valid JSON"),
        tj("empty", "", "no bytes", "TileJSON is not valid JSON"),
        tj("top-array", [good], "an array around it", "TileJSON is not a JSON object"),
        tj("invalid-utf8", json.dumps(good).replace("helsinki", "hel\udcc0sinki", 1).encode(
            "utf-8", "surrogateescape"), "a lone 0xC0 byte", ["not valid JSON", "UTF-8"]),
        tj("deep-100000", json.dumps(with_fields(vector_layers="X")).replace('"X"', deep(100000)),
           "100000 nested arrays", ["not valid JSON", "nested"]),
        tj("maxzoom-1e400", json.dumps(good).replace('"maxzoom": 14', '"maxzoom": 1e400'), "1e400", "1e400"),
        tj("tiles-missing", {k: v for k, v in good.items() if k != "tiles"}, "no tiles", ["tiles", "no tile URL"]),
        tj("tiles-string", with_fields(tiles=template), "tiles is a string", ["tiles", "array of URL templates"]),
        tj("tiles-empty", with_fields(tiles=[]), "no template", ["tiles", "no tile URL template"]),
        tj("tiles-numbers", with_fields(tiles=[1]), "a number", ["tiles", "array of URL templates"]),
    ] + [
        tj("tiles-" + name, with_fields(tiles=[template]), wrong, ["tiles", words])
        for name, template, wrong, words in BAD_TEMPLATES
    ] + [
        tj("minzoom-negative", with_fields(minzoom=-1), "minzoom -1", ["minzoom", "0 to 255"]),
        tj("minzoom-256", with_fields(minzoom=256), "minzoom 256", ["minzoom", "0 to 255"]),
        tj("maxzoom-1e300", with_fields(maxzoom=1e300), "maxzoom 1e300", ["maxzoom", "0 to 255"]),
        tj("maxzoom-string", with_fields(maxzoom="14"), "maxzoom as text", ["maxzoom", "0 to 255"]),
        tj("bounds-inverted-lat", with_fields(bounds=[24, 61, 25, 60]), "south above north", ["bounds", "south"]),
        tj("bounds-inverted-lon", with_fields(bounds=[25, 60, 24, 61]), "west east of east", ["bounds", "west"]),
        tj("bounds-three", with_fields(bounds=[24, 60, 25]), "three numbers", ["bounds"]),
        tj("bounds-giant", with_fields(bounds=[1.5] * 50000), "50000 numbers", ["bounds"]),
        tj("scheme-number", with_fields(scheme=1), "scheme is a number", ["scheme"]),
        tj("attribution-object", with_fields(attribution={"a": 1}), "attribution is an object", ["attribution"]),
        tj("maxzoom-255", with_fields(maxzoom=255), "maxzoom 255 (the mount daemon died of this)", None,
           accepted="clamped to 24"),
        tj("maxzoom-30", with_fields(maxzoom=30), "maxzoom 30", None, accepted="clamped to 24"),
        tj("minzoom-above-maxzoom", with_fields(minzoom=10, maxzoom=2), "minzoom 10 > maxzoom 2", None,
           accepted="no zoom to cover: no tiles"),
        tj("bounds-1e308", with_fields(bounds=[-1e308, -1e308, 1e308, 1e308]), "bounds of 1e308", None,
           accepted="clamped to the world"),
        tj("giant-tiles-array", with_fields(tiles=[template] * 5000), "5000 templates", None,
           accepted="the first is used, as MapLibre uses it"),
    ]


def open_tilejson():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "world", "tiles", "helsinki.json"), encoding="utf-8") as source:
        return json.load(source)


def cases():
    return broken_documents() + bad_sources() + bad_fields() + accepted() + tilejson_cases()
