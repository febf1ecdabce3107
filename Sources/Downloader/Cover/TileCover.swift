import Basics
import PackStore

// Tile cover: which Web Mercator XYZ tiles a region needs at one zoom. Pure logic, no I/O.
//
// Rules (docs/design.md §4), checked against mercantile and supermercado by TileCoverTests:
// - Latitudes are clamped to +-85.0511, longitudes to -180...180, and a coordinate within 1e-14
//   world widths of a tile edge is on it (mercantile's EPSILON). A tile owns its west and north
//   edges; the world's east and south edges belong to the last column and row.
// - Bounds: every tile whose interior meets the box, as `mercantile.tiles`; a box of zero width or
//   height on a tile edge still gets the tiles that own it, where mercantile returns none.
// - Polygons (holes, Multi): every tile whose interior meets the closed polygon (even-odd per
//   polygon, so ring orientation does not matter); a tile wholly inside a hole is left out. A
//   box-shaped polygon covers what the same bounds cover, as MapLibre's spans do.
// - Lines and points: every tile they meet as a half-open cell (a line on a tile edge takes the
//   row south or the column east of it; a point on an edge, the tile `mercantile.tile` gives),
//   since a line has no interior. A polygon with no width or height is covered as its outline.
// - supermercado (GDAL's all_touched) differs only on tile edges and corners; the tests say where.
// - Segments are straight in Mercator; one from 179 to -179 spans the world the long way (RFC 7946
//   geometries are cut at the antimeridian). A segment crossing a tile corner is decided by
//   floating point.
// - GeometryCollection: the union of its members. `within` (a source's bounds) keeps only tiles
//   also in those bounds' cover; bounds with west > east cross the antimeridian.
//
// Cost. A bounds cover is a rectangle: counting it is O(1). A geometry cover scans row by row
// (`RowScanner`), holding only the edges of the current row: enumerating or counting a cover of
// millions of tiles holds a few runs of columns at a time, never the tiles.

/// The tiles covering a region's area at one zoom: a lazy sequence in row-major order (north to
/// south, west to east). Build one and iterate it, or ask `count` before downloading.
public struct TileCover: Sequence, Sendable {
    public let zoom: Int
    fileprivate let plan: Plan

    fileprivate enum Plan: Sendable {
        case rect(TileRect)
        /// A scanner at its first row; each iteration runs a copy.
        case scan(RowScanner)
        case empty
    }

    /// - Parameter bounds: a source's bounds; tiles outside them are left out.
    public init(_ area: RegionDefinition.Area, zoom: Int, within bounds: Bounds? = nil) {
        let grid = TileGrid(zoom: zoom)
        self.zoom = zoom
        switch area {
        case .bounds(let box):
            plan = grid.rect(of: box, within: bounds).map(Plan.rect) ?? .empty
        case .geometry(let geometry):
            let limit = bounds.map(grid.rect(of:))
            plan = .scan(RowScanner(edges: EdgeBuilder.edges(of: geometry, grid: grid), grid: grid, limit: limit))
        }
    }

    public static func tiles(
        covering area: RegionDefinition.Area, zoom: Int, within bounds: Bounds? = nil
    ) -> [TileCoordinate] {
        Array(TileCover(area, zoom: zoom, within: bounds))
    }

    /// The number of tiles, without listing them (for tile limits before a download).
    public static func count(covering area: RegionDefinition.Area, zoom: Int, within bounds: Bounds? = nil) -> Int {
        TileCover(area, zoom: zoom, within: bounds).count
    }

    /// The number of tiles: O(1) for bounds, one scan of the rows for a geometry.
    public var count: Int {
        if case .rect(let rect) = plan { return rect.count }
        return spans.reduce(0) { $0 + $1.x.count }
    }

    /// The cover as runs of tiles in one row, for callers that batch by row.
    public var spans: Spans { Spans(plan: plan) }

    public func makeIterator() -> Iterator {
        Iterator(zoom: zoom, spans: spans.makeIterator())
    }

    /// The tiles one by one.
    public struct Iterator: IteratorProtocol {
        let zoom: Int
        var spans: Spans.Iterator
        var current: TileSpan?
        var nextX = 0

        public mutating func next() -> TileCoordinate? {
            while true {
                if let span = current, nextX <= span.x.upperBound {
                    nextX += 1
                    return TileCoordinate(z: zoom, x: nextX - 1, y: span.y)
                }
                guard let span = spans.next() else { return nil }
                current = span
                nextX = span.x.lowerBound
            }
        }
    }

    /// The cover's runs, row by row, north to south and west to east within a row.
    public struct Spans: Sequence, Sendable {
        fileprivate let plan: Plan

        public func makeIterator() -> Iterator {
            switch plan {
            case .rect(let rect): return Iterator(rect: rect, scanner: nil)
            case .scan(let scanner): return Iterator(rect: nil, scanner: scanner)
            case .empty: return Iterator(rect: nil, scanner: nil)
            }
        }

        public struct Iterator: IteratorProtocol {
            private let rect: TileRect?
            private var row: Int
            private var column = 0
            private var scanner: RowScanner?
            /// The rest of the scanner's current row, last run first.
            private var pending: [TileSpan] = []

            fileprivate init(rect: TileRect?, scanner: RowScanner?) {
                self.rect = rect
                self.row = rect?.rows.lowerBound ?? 0
                self.scanner = scanner
            }

            public mutating func next() -> TileSpan? {
                if let rect {
                    guard row <= rect.rows.upperBound else { return nil }
                    let span = TileSpan(y: row, x: rect.columns[column])
                    column += 1
                    if column == rect.columns.count { (row, column) = (row + 1, 0) }
                    return span
                }
                // Mutating the optional in place keeps the scanner's arrays uniquely owned.
                if pending.isEmpty, let next = scanner?.next() {
                    pending = next.runs.reversed().map { TileSpan(y: next.y, x: $0) }
                }
                return pending.popLast()
            }
        }
    }
}
