import Basics
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// A point in tile units at one zoom: x from 0 (-180) to 2^z (180), y from 0 (north edge of the
/// world, +85.0511) to 2^z (south edge).
struct GridPoint: Equatable, Sendable {
    var x: Double
    var y: Double
}

/// Web Mercator at one zoom, in tile units, and the rounding rules every cover shares. A tile owns
/// its west and north edges (mercantile's and MapLibre's half-open convention), but the world's east
/// and south edges belong to the last column and row: 180 degrees east is column 2^z - 1.
struct TileGrid: Sendable {
    /// MapLibre's `util::LATITUDE_MAX`, atan(sinh(pi)): where the square Mercator world ends.
    static let maxLatitude = 85.051128779806604

    let zoom: Int
    /// 2^zoom tiles per side.
    let size: Int

    init(zoom: Int) {
        // A programmer's mistake only: every zoom comes from TileSource.coveringZooms, bounded by
        // the source's zooms, which StyleModel clamps to 0...24 where a TileJSON is read.
        precondition((0...30).contains(zoom), "zoom \(zoom) is outside 0...30")
        self.zoom = zoom
        self.size = 1 << zoom
    }

    var lastIndex: Int { size - 1 }

    /// Exact for every tile edge longitude (k * 360 / 2^z - 180): the sum and the quotient are
    /// representable, so a bound written on an edge lands on the integer, not beside it.
    func x(longitude: Double) -> Double {
        let lon = longitude >= -180 ? min(longitude, 180) : -180  // NaN goes west, never traps
        return snapped((lon + 180) / 360 * Double(size))
    }

    /// mercantile's formula; latitude 0 gives exactly half the world.
    func y(latitude: Double) -> Double {
        let lat = latitude >= -Self.maxLatitude ? min(latitude, Self.maxLatitude) : -Self.maxLatitude
        let s = sin(lat * .pi / 180)
        let unit = 0.5 - 0.25 * log((1 + s) / (1 - s)) / .pi
        return snapped(min(max(unit, 0), 1) * Double(size))
    }

    /// A coordinate within 1e-14 world widths of a tile edge is on it (mercantile's EPSILON): bounds
    /// copied from a tile's own project a few ulps beside its edges and would pull in a neighbour.
    private func snapped(_ v: Double) -> Double {
        let edge = v.rounded()
        return abs(v - edge) <= Double(size) * 1e-14 ? edge : v
    }

    func point(_ position: Position) -> GridPoint {
        GridPoint(x: x(longitude: position.longitude), y: y(latitude: position.latitude))
    }

    /// The column (or row) that owns coordinate `v` under the half-open rule.
    func index(owning v: Double) -> Int {
        clamp(Int(v.rounded(.down)))
    }

    /// The last column (or row) whose open interior lies before `v`: a range that ends exactly on
    /// an edge does not reach the tile beyond it. May be one less than `index(owning:)`.
    func index(endingAt v: Double) -> Int {
        clamp(Int(v.rounded(.up)) - 1)
    }

    func clamp(_ i: Int) -> Int { min(max(i, 0), lastIndex) }

    /// The tiles of a bounding box: every tile whose interior meets it, as `mercantile.tiles`; a box of
    /// zero width or height on an edge gets the tile that owns it, where mercantile returns nothing.
    /// West > east crosses the antimeridian, as in mercantile.
    func rect(of bounds: Bounds) -> TileRect {
        let top = y(latitude: bounds.north), bottom = y(latitude: bounds.south)
        let columns: [ClosedRange<Int>]
        if bounds.west <= bounds.east {
            columns = [range(x(longitude: bounds.west), x(longitude: bounds.east))]
        } else {
            columns = [range(x(longitude: bounds.west), Double(size)), range(0, x(longitude: bounds.east))]
        }
        return TileRect(columns: ColumnRuns.merged(columns), rows: range(min(top, bottom), max(top, bottom)))
    }

    /// The tiles of `box` that are also tiles of `limit` (a source's bounds); nil when none are.
    func rect(of box: Bounds, within limit: Bounds?) -> TileRect? {
        let full = rect(of: box)
        return limit.map { full.intersection(rect(of: $0)) } ?? full
    }

    private func range(_ low: Double, _ high: Double) -> ClosedRange<Int> {
        let first = index(owning: low)
        return first...max(first, index(endingAt: high))
    }
}

/// A rectangle of tiles; `columns` holds two runs when it crosses the antimeridian.
struct TileRect: Equatable, Sendable {
    /// Sorted and disjoint (see `ColumnRuns.merged`).
    var columns: [ClosedRange<Int>]
    var rows: ClosedRange<Int>

    /// Tiles per row.
    var width: Int { columns.reduce(0) { $0 + $1.count } }

    var count: Int { rows.count * width }

    /// The part of `span` inside the columns, as runs in increasing order.
    func clip(_ span: ClosedRange<Int>) -> [ClosedRange<Int>] {
        columns.compactMap { column in
            let low = max(column.lowerBound, span.lowerBound), high = min(column.upperBound, span.upperBound)
            return low <= high ? low...high : nil
        }
    }

    func intersection(_ other: TileRect) -> TileRect? {
        let low = max(rows.lowerBound, other.rows.lowerBound)
        let high = min(rows.upperBound, other.rows.upperBound)
        let columns = columns.flatMap(other.clip)
        guard low <= high, !columns.isEmpty else { return nil }
        return TileRect(columns: columns, rows: low...high)
    }
}

/// Runs of columns.
enum ColumnRuns {
    /// Sorted by start, with overlapping or touching runs joined, so that no tile is counted twice.
    static func merged(_ runs: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, run.lowerBound <= last.upperBound + 1 {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, run.upperBound)
            } else {
                out.append(run)
            }
        }
        return out
    }
}
