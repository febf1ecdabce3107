"""GeoJSON geometries (geojson/): the value of a region file's `geometry`. The tests wrap each in
`{"style": ..., "geometry": <file>, "minzoom": 0, "maxzoom": 6}` and cover accepted ones at z0-6."""
from corpus import case, deep, giant

RING = "[[24.93, 60.16], [24.96, 60.16], [24.96, 60.18], [24.93, 60.18], [24.93, 60.16]]"


def g(name, content, wrong, expect, **extra):
    newline = b"\n" if isinstance(content, bytes) else "\n"
    return case("geojson", "geojson/" + name + ".geojson", content + newline, wrong, expect, **extra)


def shape(kind, coordinates):
    return '{"type": "%s", "coordinates": %s}' % (kind, coordinates)


def invalid():
    position = ["geometry.coordinates", "[longitude, latitude]"]
    return [
        g("not-json", "Polygon((1 2, 3 4))", "WKT, not JSON", "not valid JSON"),
        g("truncated", shape("Polygon", "[" + RING)[:-3], "stops inside the ring", "not valid JSON"),
        g("string", '"Polygon"', "a string", ["geometry", "GeoJSON object"]),
        g("array", RING, "bare coordinates", ["geometry", "GeoJSON object"]),
        g("no-type", '{"coordinates": [24.9, 60.1]}', "no type", ["geometry", 'no "type"']),
        g("type-number", '{"type": 7, "coordinates": [24.9, 60.1]}', "type is a number", ["geometry", "type"]),
        g("unknown-type", shape("Circle", "[24.9, 60.1]"), "a type GeoJSON does not have",
          ["geometry.type", "unknown geometry type"]),
        g("type-lowercase", shape("polygon", "[" + RING + "]"), "type in lower case",
          ["geometry.type", "unknown geometry type"]),
        g("coordinates-missing", '{"type": "Point"}', "no coordinates", ["geometry.coordinates", "missing"]),
        g("point-one-number", shape("Point", "[24.9]"), "one number", position),
        g("point-four-numbers", shape("Point", "[24.9, 60.1, 0, 0]"), "four numbers", position),
        g("point-strings", shape("Point", '["24.9", "60.1"]'), "numbers as strings", position),
        g("point-lon-181", shape("Point", "[181, 60.1]"), "longitude 181", ["geometry.coordinates", "outside"]),
        g("point-lat-1e308", shape("Point", "[24.9, 1e308]"), "latitude 1e308", ["geometry.coordinates", "outside"]),
        g("point-1e400", shape("Point", "[1e400, 60.1]"), "1e400 overflows a double", "1e400"),
        g("point-nan", shape("Point", "[NaN, 60.1]"), "NaN is not JSON", "not valid JSON"),
        g("line-one-position", shape("LineString", "[[24.9, 60.1]]"), "a line of one position",
          ["geometry.coordinates", "at least 2"]),
        g("polygon-open-ring", shape("Polygon", "[" + RING.replace("[24.93, 60.16]]", "[24.93, 60.17]]") + "]"),
          "a ring that does not close", ["geometry.coordinates[0]", "must end where it starts"]),
        g("polygon-three-positions", shape("Polygon", "[[[24.9, 60.1], [25, 60.1], [24.9, 60.1]]]"),
          "a ring of three positions", ["geometry.coordinates[0]", "at least 4"]),
        g("polygon-empty", shape("Polygon", "[]"), "no rings", ["geometry.coordinates", "at least 1"]),
        g("polygon-ring-number", shape("Polygon", "[5]"), "a ring that is a number",
          ["geometry.coordinates[0]", "not an array"]),
        g("multipoint-empty", shape("MultiPoint", "[]"), "no points", ["geometry.coordinates", "at least 1"]),
        g("collection-empty", '{"type": "GeometryCollection", "geometries": []}', "nothing in the collection",
          ["geometry.geometries", "empty"]),
        g("feature-null-geometry", '{"type": "Feature", "geometry": null, "properties": {}}',
          "a feature without geometry", ["geometry.geometry", "missing or null"]),
        g("features-empty", '{"type": "FeatureCollection", "features": []}', "no features",
          ["geometry.features", "empty"]),
        g("features-object", '{"type": "FeatureCollection", "features": {}}', "features is an object",
          ["geometry.features", "not an array"]),
        g("features-not-feature", '{"type": "FeatureCollection", "features": [%s]}' % shape("Point", "[1, 2]"),
          "a bare geometry among the features", ["geometry.features[0].type", "must be \"Feature\""]),
        g("deep-100000", shape("MultiPolygon", deep(100000)), "100000 nested arrays",
          ["not valid JSON", "nested"]),
        g("giant-line-bad-last", shape("LineString", giant(19999, "[24.9,60.1]")[:-1] + ",[24.9,91]]"),
          "20000 positions, the last at latitude 91", ["geometry.coordinates[19999]", "outside"]),
        g("invalid-utf8", b'{"type": "Point", "coordinates": [1, 2], "x": "\xff"}', "a 0xFF byte in a string",
          ["not valid JSON", "UTF-8"]),
    ]


def accepted():
    zigzag = ",".join("[%.5f,%.2f]" % (24.9 + 0.05 * i / 10000, 60.1 + (i % 2) * 0.01) for i in range(10000))
    big_ring = "[[" + zigzag + ",[24.90000,60.10]]]"
    nested = '{"type": "GeometryCollection", "geometries": [%s]}'
    collection = shape("Point", "[24.94, 60.17]")
    for _ in range(200):  # 400 levels of JSON: Foundation's parser takes 512
        collection = nested % collection
    return [
        g("polygon-10000-vertices", shape("Polygon", big_ring), "a zigzag ring of 10001 positions", None,
          accepted="covered at z0-6 like any polygon"),
        g("collection-200-deep", collection, "200 nested GeometryCollections", None,
          accepted="flattened to its one point"),
        g("antimeridian-long-way", shape("LineString", "[[179.5, 0], [-179.5, 0]]"),
          "a line from 179.5 to -179.5", None, accepted="covered the long way, as RFC 7946 says"),
        g("pole", shape("Polygon", "[[[0, 89], [10, 89], [10, 90], [0, 90], [0, 89]]]"), "a polygon at the pole",
          None, accepted="latitudes clamped to 85.0511: covered as its outline"),
        g("degenerate-polygon", shape("Polygon", "[[[1, 1], [1, 1], [1, 1], [1, 1]]]"), "four equal positions",
          None, accepted="covered as the point it is"),
        g("whole-world", shape("Polygon", "[[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]]"),
          "the whole world", None, accepted="every tile of z0-6"),
    ]


def cases():
    return invalid() + accepted()
