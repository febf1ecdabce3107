#!/usr/bin/env python3
"""Reference tile covers for TileCoverTests.

Prints, as JSON, a list of cases: each an area (bounds or a GeoJSON geometry), a zoom, an
optional `within` (a source's bounds) and the reference set of tiles, with the name of the
reference that produced it. The Swift test computes the same covers and compares the sets.

References:
- "mercantile": mercantile.tiles(west, south, east, north, zoom) for bounds.
- "supermercado": supermercado.burntiles.burn (GDAL's all_touched raster burn) for geometries.
- "exact": the cover rules of Sources/Downloader/Cover/TileCover.swift, computed tile by tile in
  exact rational arithmetic (fractions), with no scanline and no floating point after the
  projection. It is only trusted because this script checks it against supermercado (or
  mercantile) on every case where those apply, and exits 1 if they disagree anywhere a
  difference is not declared and explained in the case.

Where supermercado and the rules differ by design (shapes exactly on tile edges or corners),
the case says why in its `supermercado` field and the reference is "exact". Where mercantile
and the rules differ (a zero-width box on a tile edge: mercantile returns nothing), likewise.

Needs: pip install mercantile supermercado
"""
import json
import math
import sys
import warnings
from fractions import Fraction

import mercantile
from supermercado import burntiles

warnings.filterwarnings("ignore", category=FutureWarning)  # mercantile's note about 2.0

MAX_LAT = 85.051128779806604  # MapLibre's LATITUDE_MAX, the edge of the Mercator square
EXACT_LIMIT = 40000  # tiles in a shape's bounding range beyond which only supermercado is used


# --- projection, as TileGrid does it (floats), then exact ----------------------------------

def snap(v, n):
    """Coordinates within 1e-14 of the world's width from a tile edge are on it (mercantile's EPSILON)."""
    r = round(v)
    return float(r) if abs(v - r) <= n * 1e-14 else v


def grid_point(position, z):
    n = 2 ** z
    lon = min(max(position[0], -180.0), 180.0)
    lat = min(max(position[1], -MAX_LAT), MAX_LAT)
    x = (lon + 180.0) / 360.0 * n
    s = math.sin(lat * math.pi / 180.0)
    y = min(max(0.5 - 0.25 * math.log((1 + s) / (1 - s)) / math.pi, 0.0), 1.0) * n
    return (Fraction(snap(x, n)), Fraction(snap(y, n)))


# --- exact predicates ----------------------------------------------------------------------

def segment_meets(p, q, box):
    """Whether segment p-q meets a box given per axis as ((low, low_closed), (high, high_closed))."""
    low, low_closed, high, high_closed = Fraction(0), True, Fraction(1), True
    for axis in (0, 1):
        a, d = p[axis], q[axis] - p[axis]
        (lo, lo_c), (hi, hi_c) = box[axis]
        if d == 0:
            if not ((a > lo or (lo_c and a == lo)) and (a < hi or (hi_c and a == hi))):
                return False
            continue
        t_lo, t_lo_c, t_hi, t_hi_c = (lo - a) / d, lo_c, (hi - a) / d, hi_c
        if d < 0:
            t_lo, t_lo_c, t_hi, t_hi_c = t_hi, t_hi_c, t_lo, t_lo_c
        if t_lo > low:
            low, low_closed = t_lo, t_lo_c
        elif t_lo == low:
            low_closed = low_closed and t_lo_c
        if t_hi < high:
            high, high_closed = t_hi, t_hi_c
        elif t_hi == high:
            high_closed = high_closed and t_hi_c
    return low < high or (low == high and low_closed and high_closed)


def open_square(x, y):
    return (((x, False), (x + 1, False)), ((y, False), (y + 1, False)))


def half_open_cell(x, y, n):
    """A tile owns its west and north edges; the last column and row also own the world's edge."""
    return (((x, True), (x + 1, x == n - 1)), ((y, True), (y + 1, y == n - 1)))


def index_range(values, n):
    low = max(math.floor(min(values)) - 1, 0)
    high = min(math.floor(max(values)) + 1, n - 1)
    return range(low, high + 1)


def line_tiles(points, n):
    """Tiles a polyline (or a point: [p, p]) meets as half-open cells."""
    tiles = set()
    for p, q in zip(points, points[1:]):
        for x in index_range([p[0], q[0]], n):
            for y in index_range([p[1], q[1]], n):
                if segment_meets(p, q, half_open_cell(x, y, n)):
                    tiles.add((x, y))
    return tiles


def centre_inside(edges, cx, cy):
    """Even-odd: crossings of the ray from the centre eastwards, a vertex counted once."""
    inside = False
    for p, q in edges:
        a, b = (p, q) if p[1] <= q[1] else (q, p)
        if a[1] <= cy < b[1] and a[0] + (cy - a[1]) * (b[0] - a[0]) / (b[1] - a[1]) > cx:
            inside = not inside
    return inside


def polygon_tiles(rings, n):
    """Tiles whose open interior meets the closed polygon: an edge passes through, or inside."""
    edges = [(p, q) for ring in rings for p, q in zip(ring, ring[1:])]
    tiles = set()
    for p, q in edges:
        for x in index_range([p[0], q[0]], n):
            for y in index_range([p[1], q[1]], n):
                if segment_meets(p, q, open_square(x, y)):
                    tiles.add((x, y))
    xs = [p[0] for ring in rings for p in ring]
    ys = [p[1] for ring in rings for p in ring]
    half = Fraction(1, 2)
    for y in index_range(ys, n):
        for x in index_range(xs, n):
            if (x, y) not in tiles and centre_inside(edges, x + half, y + half):
                tiles.add((x, y))
    return tiles


# --- geometry plumbing ---------------------------------------------------------------------

def parts(geometry):
    """(kind, coordinates) of each Point, LineString and Polygon in a geometry."""
    kind, c = geometry["type"], geometry.get("coordinates")
    if kind == "GeometryCollection":
        return [part for g in geometry["geometries"] for part in parts(g)]
    if kind.startswith("Multi"):
        return [(kind[5:], member) for member in c]
    return [(kind, c)]


def exact_cover(geometry, z):
    n = 2 ** z
    tiles = set()
    for kind, c in parts(geometry):
        if kind == "Point":
            p = grid_point(c, z)
            tiles |= line_tiles([p, p], n)
        elif kind == "LineString":
            tiles |= line_tiles([grid_point(p, z) for p in c], n)
        else:
            rings = [[grid_point(p, z) for p in ring] for ring in c]
            if len({p[0] for p in rings[0]}) == 1 or len({p[1] for p in rings[0]}) == 1:
                # No width or no height in tile units: no inside, covered as its outline.
                tiles |= set().union(*(line_tiles(r, n) for r in rings))
            else:
                tiles |= polygon_tiles(rings, n)
    return tiles


def exact_size(geometry, z):
    points = [grid_point(p, z) for _, c in parts(geometry) for p in flatten(c)]
    n = 2 ** z
    return len(index_range([p[0] for p in points], n)) * len(index_range([p[1] for p in points], n))


def flatten(c):
    return [c] if isinstance(c[0], (int, float)) else [p for member in c for p in flatten(member)]


def clamp_lat(c):
    """Vertices clamped to the Mercator square before supermercado projects them (the rule)."""
    if isinstance(c[0], (int, float)):
        return [c[0], min(max(c[1], -MAX_LAT), MAX_LAT)]
    return [clamp_lat(member) for member in c]


def supermercado_cover(geometry, z):
    features = [{"type": "Feature", "properties": {},
                 "geometry": {"type": kind, "coordinates": clamp_lat(c)}} for kind, c in parts(geometry)]
    try:
        return {(int(t[0]), int(t[1])) for t in burntiles.burn(features, z)}
    except Exception as error:  # supermercado divides by zero on shapes of zero width
        return "failed: %r" % error


def bounds_cover(b, z):
    """mercantile.tiles, except that a box of zero width or height on a tile edge keeps the tile
    that owns it (mercantile returns nothing there: its west gives the tile east of the edge, its
    east, minus an epsilon, the tile west of it)."""
    tiles = {(t.x, t.y) for t in mercantile.tiles(*b, z)}
    if tiles or not (b[0] == b[2] or b[1] == b[3]):
        return tiles
    ul, lr = mercantile.tile(b[0], b[3], z), mercantile.tile(b[2] - 1e-11, b[1] + 1e-11, z)
    return {(x, y) for x in range(ul.x, max(ul.x, lr.x) + 1) for y in range(ul.y, max(ul.y, lr.y) + 1)}


def box_polygon(b):
    w, s, e, n = b
    return {"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]}


# --- the cases -----------------------------------------------------------------------------

def point(lon, lat):
    return {"type": "Point", "coordinates": [lon, lat]}


def line(*points):
    return {"type": "LineString", "coordinates": [list(p) for p in points]}


def ring(*points):
    return [list(p) for p in points] + [list(points[0])]


def polygon(*rings):
    return {"type": "Polygon", "coordinates": list(rings)}


def box_ring(w, s, e, n):
    return ring((w, s), (e, s), (e, n), (w, n))


def tile_bounds(x, y, z):
    b = mercantile.bounds(x, y, z)
    return [b.west, b.south, b.east, b.north]


HELSINKI = [24.93, 60.16, 24.96, 60.18]
TRIANGLE = ring((-100, -40), (120, -10), (10, 70))
SAME = "same"
ZERO_EXTENT = ("supermercado cannot burn a shape of zero width or height lying on a tile edge: its tile"
               " range comes out empty and it divides by zero.")

CASES = [
    # Bounds: mercantile.tiles.
    {"name": "helsinki", "zooms": [5, 14, 16], "bounds": HELSINKI},
    {"name": "world", "zooms": [0, 1, 3], "bounds": [-180, -90, 180, 90]},
    {"name": "tiny box inside one tile", "zooms": [16], "bounds": [2.35, 48.85, 2.3501, 48.8501]},
    {"name": "europe", "zooms": [4, 8], "bounds": [-10, 35, 30, 60]},
    {"name": "exact tile 2/1/1 (edges at -90, 0, lat 0)", "zooms": [2, 4], "bounds": tile_bounds(1, 1, 2)},
    {"name": "bounds of tile 5/17/10 (latitudes off the edge by ulps)", "zooms": [5, 7], "bounds": tile_bounds(17, 10, 5)},
    {"name": "east edge 180", "zooms": [3, 9], "bounds": [170, -10, 180, 10]},
    {"name": "west edge -180", "zooms": [6], "bounds": [-180, 50, -170, 60]},
    {"name": "over the north pole clamp", "zooms": [4], "bounds": [-20, 80, 20, 90]},
    {"name": "south of the clamp", "zooms": [4], "bounds": [-20, -90, 20, -86]},
    {"name": "zero width, inside a tile", "zooms": [3], "bounds": [10, 10, 10, 20]},
    {"name": "zero width on the tile edge lon 0", "zooms": [3], "bounds": [0, 10, 0, 20]},
    {"name": "a point on the antimeridian", "zooms": [2], "bounds": [180, 0, 180, 0]},
    {"name": "world within europe", "zooms": [4], "bounds": [-180, -90, 180, 90], "within": [-10, 35, 30, 60]},
    {"name": "box within bounds crossing the antimeridian", "zooms": [3],
     "bounds": [150, -30, 180, 30], "within": [170, -20, -170, 20]},

    # Points.
    {"name": "point helsinki", "zooms": [0, 14], "geometry": point(24.95, 60.17)},
    {"name": "point on a tile corner (0, 0)", "zooms": [3], "geometry": point(0, 0),
     "supermercado": ZERO_EXTENT + " The rule gives mercantile.tile(0, 0), checked above."},
    {"name": "point on lon 180", "zooms": [4], "geometry": point(180, 10)},
    {"name": "point at the north pole", "zooms": [2], "geometry": point(-180, 90)},
    {"name": "multipoint", "zooms": [6], "geometry": {"type": "MultiPoint", "coordinates": [[1, 2], [-70, -30], [140, 60]]}},

    # Lines.
    {"name": "long diagonal line", "zooms": [3, 6], "geometry": line((-120, -40), (100, 60))},
    {"name": "short line in helsinki", "zooms": [16], "geometry": line((24.9311, 60.1623), (24.9587, 60.1777))},
    {"name": "line with a bend", "zooms": [9], "geometry": line((10.1, 50.2), (13.7, 52.9), (15.3, 47.1))},
    {"name": "line along lat 0 (a tile edge)", "zooms": [3], "geometry": line((-100, 0), (50, 0)),
     "supermercado": ZERO_EXTENT + " The rule takes the row south of the edge (half-open cells)."},
    {"name": "line along lon 0 (a tile edge)", "zooms": [4], "geometry": line((0, 10), (0, 50)),
     "supermercado": ZERO_EXTENT + " The rule takes the column east of the edge (half-open cells)."},
    {"name": "line with a vertex on a tile corner", "zooms": [3], "geometry": line((-40, -30), (0, 0), (40, 30)),
     "supermercado": "GDAL's all_touched leaves out tile 3/4/4, which the line meets only at its north-west"
                     " corner; a tile owns that corner (as mercantile.tile(0, 0) is 3/4/4), so the rule keeps it."},
    {"name": "line descending east through a tile corner", "zooms": [3, 5], "geometry": line((-40, 30), (0, 0), (40, -30)),
     "supermercado": "At the vertex (0, 0), on a tile corner, GDAL's all_touched also burns the tile south-west"
                     " of the corner, which the line only touches at that corner. Under the rule a corner"
                     " belongs to the one tile that owns it, south-east of it, which both keep."},
    {"name": "line along the antimeridian", "zooms": [3], "geometry": line((180, -10), (180, 10)),
     "supermercado": "The line lies on the world's east edge, outside supermercado's raster, which burns"
                     " nothing; the rule gives the world's east edge to the last column, as for bounds."},
    {"name": "line along lon -180", "zooms": [3], "geometry": line((-180, -10), (-180, 10))},
    {"name": "multilinestring", "zooms": [8], "geometry": {"type": "MultiLineString", "coordinates": [
        [[2.1, 41.3], [2.9, 42.7]], [[-3.7, 40.4], [-0.4, 39.5], [-5.9, 37.4]]]}},

    # Polygons.
    {"name": "triangle", "zooms": [0, 3, 6], "geometry": polygon(TRIANGLE)},
    {"name": "triangle clockwise", "zooms": [6], "geometry": polygon(TRIANGLE[::-1])},
    {"name": "polygon with a hole", "zooms": [3, 5], "geometry": polygon(
        box_ring(-60, -40, 60, 50), box_ring(-30.5, -20.5, 30.5, 30.5)[::-1])},
    {"name": "polygon with two holes", "zooms": [7], "geometry": polygon(
        ring((-20, -10), (40, -15), (35, 30), (-25, 25)), box_ring(-10, -5, 5, 10), box_ring(15, 0, 30, 20))},
    {"name": "hole whose edges lie on tile edges", "zooms": [2, 3], "geometry": polygon(
        box_ring(-135.5, -60.5, 135.5, 70.5), box_ring(-90, 0, 0, tile_bounds(0, 1, 2)[3]))},
    {"name": "concave U", "zooms": [6], "geometry": polygon(
        ring((-50, -30), (50, -30), (50, 40), (30, 40), (30, -10), (-30, -10), (-30, 40), (-50, 40)))},
    {"name": "multipolygon of two islands", "zooms": [7], "geometry": {"type": "MultiPolygon", "coordinates": [
        [box_ring(-5.3, 50.1, -1.2, 52.9)], [ring((3.1, 45.2), (7.9, 46.0), (5.5, 49.4))]]}},
    {"name": "multipolygon overlapping", "zooms": [5], "geometry": {"type": "MultiPolygon", "coordinates": [
        [box_ring(-20, -20, 20, 20)], [box_ring(0, 0, 40, 40)]]}},
    {"name": "polygon = tile 2/1/1", "zooms": [2, 3], "geometry": polygon(box_ring(*tile_bounds(1, 1, 2)))},
    {"name": "polygon with edges on lon -90, 0 and lat 0", "zooms": [3], "geometry": polygon(box_ring(-90, 0, 0, 40))},
    {"name": "polygon near the north pole", "zooms": [4], "geometry": polygon(box_ring(-30, 80, 30, 89.9))},
    {"name": "polygon touching the antimeridian", "zooms": [4], "geometry": polygon(box_ring(170, -10, 180, 10))},
    {"name": "polygon touching lon -180", "zooms": [4], "geometry": polygon(box_ring(-180, -10, -170, 10))},
    {"name": "city block", "zooms": [16], "geometry": polygon(
        ring((24.9402, 60.1689), (24.9461, 60.1692), (24.9455, 60.1712), (24.9398, 60.1707)))},
    {"name": "helsinki area polygon", "zooms": [12], "geometry": polygon(
        ring((24.78, 60.13), (25.25, 60.15), (25.19, 60.32), (24.83, 60.29)))},
    {"name": "finland-sized polygon", "zooms": [10], "geometry": polygon(
        ring((21.0, 60.0), (27.8, 60.4), (30.0, 63.0), (29.0, 69.0), (24.0, 68.5), (21.5, 63.0)))},
    {"name": "finland-sized polygon (supermercado only: too large for the exact reference)", "zooms": [13],
     "geometry": polygon(ring((21.0, 60.0), (27.8, 60.4), (30.0, 63.0), (29.0, 69.0), (24.0, 68.5), (21.5, 63.0)))},
    {"name": "long line helsinki-tampere (supermercado only)", "zooms": [16],
     "geometry": line((24.9384, 60.1699), (24.6559, 60.2055), (23.7610, 61.4978))},
    {"name": "finland-sized polygon within source bounds", "zooms": [8], "within": [20, 59, 26, 62],
     "geometry": polygon(ring((21.0, 60.0), (27.8, 60.4), (30.0, 63.0), (29.0, 69.0), (24.0, 68.5), (21.5, 63.0)))},
    {"name": "line outside the source bounds", "zooms": [6], "within": [100, 10, 120, 20],
     "geometry": line((-10, -12), (10, 10))},
    {"name": "polygon flattened by the latitude clamp", "zooms": [3], "geometry": polygon(box_ring(-20, -89, 20, -86)),
     "supermercado": "Clamped to -85.0511 the polygon has no height and GDAL burns nothing; the rule covers a"
                     " polygon with no width or height as its outline, the last row, as mercantile does for the"
                     " same box as bounds (case 'south of the clamp')."},
    {"name": "geometry collection", "zooms": [6], "geometry": {"type": "GeometryCollection", "geometries": [
        point(-60.5, -20.5), line((0.5, 0.5), (30.5, 10.5)), polygon(ring((100, 10), (120, 10), (110, 30)))]}},
]


def supermercado_expectation(case):
    return case.get("supermercado", SAME)


def bounds_case(case, z, failures, tally):
    b = case["bounds"]
    tiles = bounds_cover(b, z)
    # The box as a polygon under the polygon rule must give the same tiles, except a box of
    # zero width on a tile edge, where mercantile gives none (see bounds_cover).
    if exact_size(box_polygon(b), z) <= EXACT_LIMIT:
        exact = exact_cover(box_polygon(b), z)
        if exact != tiles:
            failures.append("%s z%d: box as a polygon differs from mercantile: %s" % (case["name"], z, sorted(exact ^ tiles)))
        tally["mercantile agrees with exact"] += 1
    return {"bounds": b}, tiles, "mercantile", None


def geometry_case(case, z, failures, tally):
    g, name, expected = case["geometry"], "%s z%d" % (case["name"], z), supermercado_expectation(case)
    burned = supermercado_cover(g, z)
    if exact_size(g, z) > EXACT_LIMIT:
        if expected != SAME or isinstance(burned, str):
            failures.append("%s: too large for the exact reference and supermercado not usable" % name)
        return {"geometry": g}, burned, "supermercado", None
    tiles = exact_cover(g, z)
    if g["type"] == "Point":
        t = mercantile.tile(g["coordinates"][0], min(max(g["coordinates"][1], -MAX_LAT), MAX_LAT), z)
        if tiles != {(t.x, t.y)}:
            failures.append("%s: mercantile.tile gives %s, the rule %s" % (name, (t.x, t.y), tiles))
    if isinstance(burned, str):
        seen = "supermercado " + burned
    else:
        seen = "only supermercado: %s; only the rule: %s" % (sorted(burned - tiles), sorted(tiles - burned))
    if expected == SAME and burned != tiles:
        failures.append("%s: supermercado differs (%s)" % (name, seen))
    if expected != SAME and burned == tiles:
        failures.append("%s: declared difference not seen: %s" % (name, expected))
    tally["supermercado agrees with exact" if burned == tiles else "declared differences"] += 1
    return {"geometry": g}, tiles, "exact", None if expected == SAME else "%s (%s)" % (expected, seen)


def main():
    failures, out = [], []
    tally = {"mercantile agrees with exact": 0, "supermercado agrees with exact": 0, "declared differences": 0}
    for case in CASES:
        for z in case["zooms"]:
            run = bounds_case if "bounds" in case else geometry_case
            area, tiles, reference, note = run(case, z, failures, tally)
            if case.get("within") and not isinstance(tiles, str):
                tiles = tiles & bounds_cover(case["within"], z)
            out.append({"name": "%s z%d" % (case["name"], z), "zoom": z, "area": area,
                        "within": case.get("within"), "reference": reference, "note": note,
                        "tiles": sorted([x, y] for x, y in tiles)})
    if failures:
        sys.stderr.write("reference self-check failed:\n  " + "\n  ".join(failures) + "\n")
        return 1
    json.dump({"cases": out, "checks": tally}, sys.stdout, indent=None)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
