import Basics
import FoundationEssentials
import PackStore

/// One segment of a region's geometry in grid units (a polygon edge, a piece of a line, or a point),
/// and the tiles it touches in each row, by `TileCover`'s two rules:
/// - a polygon edge touches a tile when it passes through its open interior (the inside is filled
///   separately, `crossing(row:)`), so an edge lying on a tile edge adds nothing;
/// - a line or point touches a tile when it meets it as a half-open cell (west and north edges
///   included), as `mercantile.tile` does.
struct CoverEdge: Sendable {
    /// The end with the smaller y (the northern one) ...
    let a: GridPoint
    /// ... and the other.
    let b: GridPoint
    /// The polygon (numbered per geometry) whose ring this edge is part of; nil for lines and points.
    let polygon: Int?
    /// The rows the edge touches.
    let rows: ClosedRange<Int>

    /// nil when the edge touches no tile: a polygon edge lying on a row boundary.
    init?(_ p: GridPoint, _ q: GridPoint, polygon: Int?, grid: TileGrid) {
        (a, b) = p.y <= q.y ? (p, q) : (q, p)
        self.polygon = polygon
        if polygon == nil {
            rows = grid.index(owning: a.y)...grid.index(owning: b.y)
        } else if a.y == b.y {
            // Horizontal: it is inside a row's open band unless it lies on the row boundary.
            guard a.y.rounded(.down) != a.y else { return nil }
            rows = grid.index(owning: a.y)...grid.index(owning: a.y)
        } else {
            rows = grid.index(owning: a.y)...grid.index(endingAt: b.y)
        }
    }

    /// x where the edge is at height `y`; exact at both ends, so a vertex on a tile edge stays on it.
    func x(at y: Double) -> Double {
        if y <= a.y { return a.x }
        if y >= b.y { return b.x }
        return a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)
    }

    /// The columns this edge touches in `row` (one of `rows`); nil when none.
    func columns(inRow row: Int, grid: TileGrid) -> ClosedRange<Int>? {
        let top = max(a.y, Double(row)), bottom = min(b.y, Double(row + 1))
        let (x0, x1) = a.y == b.y ? (a.x, b.x) : (x(at: top), x(at: bottom))
        let low = Int(min(x0, x1).rounded(.down))
        let high: Int
        if polygon != nil {
            // Open interiors: a run ending exactly on a tile edge stops before it.
            high = Int(max(x0, x1).rounded(.up)) - 1
        } else if bottom == Double(row + 1), row < grid.lastIndex, a.y < b.y, x1 > x0 {
            // The point where a line leaves through the row's south edge belongs to the next
            // row; when it is also the run's east end, the run stops before a tile edge there.
            high = Int(x1.rounded(.up)) - 1
        } else {
            high = Int(max(x0, x1).rounded(.down))
        }
        guard low <= high else { return nil }
        return grid.clamp(low)...grid.clamp(high)
    }

    /// Where a polygon edge crosses the line through the centres of `row`'s tiles, for the
    /// even-odd fill. `a.y <= y < b.y` counts a vertex on that line once, never twice.
    func crossing(row: Int) -> Double? {
        let y = Double(row) + 0.5
        guard polygon != nil, a.y <= y, y < b.y else { return nil }
        return x(at: y)
    }
}

/// Turns a geometry into edges, numbering its polygons so that each fills on its own (a
/// MultiPolygon is the union of its polygons; holes belong to the polygon they are in).
struct EdgeBuilder {
    let grid: TileGrid
    private(set) var edges: [CoverEdge] = []
    private var polygons = 0

    init(grid: TileGrid) { self.grid = grid }

    /// The edges sorted by their first row, as the row scanner takes them.
    static func edges(of geometry: Geometry, grid: TileGrid) -> [CoverEdge] {
        var builder = EdgeBuilder(grid: grid)
        builder.add(geometry)
        return builder.edges.sorted { $0.rows.lowerBound < $1.rows.lowerBound }
    }

    mutating func add(_ geometry: Geometry) {
        switch geometry {
        case .point(let p): addPath([grid.point(p), grid.point(p)], polygon: nil)
        case .multiPoint(let points): points.forEach { addPath([grid.point($0), grid.point($0)], polygon: nil) }
        case .lineString(let line): addPath(line.map(grid.point), polygon: nil)
        case .multiLineString(let lines): lines.forEach { addPath($0.map(grid.point), polygon: nil) }
        case .polygon(let rings): addPolygon(rings)
        case .multiPolygon(let polygons): polygons.forEach { addPolygon($0) }
        case .collection(let parts): parts.forEach { add($0) }
        }
    }

    private mutating func addPolygon(_ rings: [[Position]]) {
        let projected = rings.map { $0.map(grid.point) }
        guard let outer = projected.first, let first = outer.first else { return }
        // A polygon with no width or height in tile units has no inside: covered as its outline.
        if outer.allSatisfy({ $0.x == first.x }) || outer.allSatisfy({ $0.y == first.y }) {
            projected.forEach { addPath($0, polygon: nil) }
            return
        }
        let index = polygons
        polygons += 1
        // GeoJSON rings end where they start; close them anyway so that every ring is a loop.
        for ring in projected where ring.count > 1 {
            addPath(ring.first == ring.last ? ring : ring + [ring[0]], polygon: index)
        }
    }

    private mutating func addPath(_ points: [GridPoint], polygon: Int?) {
        for (p, q) in zip(points, points.dropFirst()) {
            if let edge = CoverEdge(p, q, polygon: polygon, grid: grid) { edges.append(edge) }
        }
    }
}
