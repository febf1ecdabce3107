/// Walks a geometry's edges row by row, north to south, and yields each row's covered columns.
///
/// Only the edges reaching the current row are looked at (an active edge table, as in MapLibre's
/// `TileCover`), so a cover of millions of tiles is never held: a row is a few runs of columns.
/// A tile is covered when an edge touches it (`CoverEdge.columns`) or, touched by none, when its
/// centre is inside a polygon (even-odd crossings on the line through the row's centres).
struct RowScanner: Sendable {
    private let edges: [CoverEdge]
    private let grid: TileGrid
    private let limit: TileRect?
    /// Index in `edges` of the first edge not yet taken into `active`.
    private var nextEdge = 0
    private var active: [CoverEdge] = []
    private var row: Int

    /// `edges` sorted by their first row; `limit` keeps only the tiles inside it.
    init(edges: [CoverEdge], grid: TileGrid, limit: TileRect?) {
        self.edges = edges
        self.grid = grid
        self.limit = limit
        self.row = limit?.rows.lowerBound ?? 0
    }

    /// The next row holding covered tiles, with its runs of columns (sorted, disjoint); nil at the end.
    mutating func next() -> TileSpanRow? {
        let lastRow = limit?.rows.upperBound ?? grid.lastIndex
        while true {
            if active.isEmpty {
                // Jump over rows no edge reaches (gaps between the parts of a Multi geometry).
                guard nextEdge < edges.count else { return nil }
                row = max(row, edges[nextEdge].rows.lowerBound)
            }
            guard row <= lastRow else { return nil }
            while nextEdge < edges.count, edges[nextEdge].rows.lowerBound <= row {
                if edges[nextEdge].rows.upperBound >= row { active.append(edges[nextEdge]) }
                nextEdge += 1
            }
            let runs = scan(row: row)
            active.removeAll { $0.rows.upperBound <= row }
            row += 1
            if !runs.isEmpty { return TileSpanRow(y: row - 1, runs: runs) }
        }
    }

    private func scan(row: Int) -> [ClosedRange<Int>] {
        var runs: [ClosedRange<Int>] = []
        var crossings: [(polygon: Int, x: Double)] = []
        for edge in active {
            if let run = edge.columns(inRow: row, grid: grid) { runs.append(run) }
            if let polygon = edge.polygon, let x = edge.crossing(row: row) { crossings.append((polygon, x)) }
        }
        crossings.sort { ($0.polygon, $0.x) < ($1.polygon, $1.x) }
        var i = 0
        while i + 1 < crossings.count {
            // Rings are closed, so each polygon has an even number of crossings; the check only
            // keeps a damaged ring from pairing with the next polygon.
            guard crossings[i].polygon == crossings[i + 1].polygon else {
                i += 1
                continue
            }
            if let run = inside(from: crossings[i].x, to: crossings[i + 1].x) { runs.append(run) }
            i += 2
        }
        let merged = ColumnRuns.merged(runs)
        guard let limit else { return merged }
        return merged.flatMap(limit.clip)
    }

    /// The columns whose centres (x + 0.5) lie strictly between two crossings.
    private func inside(from start: Double, to end: Double) -> ClosedRange<Int>? {
        let low = Int((start - 0.5).rounded(.down)) + 1
        let high = Int((end - 0.5).rounded(.up)) - 1
        guard low <= high else { return nil }
        return grid.clamp(low)...grid.clamp(high)
    }
}

/// One row of a cover: its y and its runs of columns.
struct TileSpanRow: Sendable {
    var y: Int
    var runs: [ClosedRange<Int>]
}
