import CSQLite
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// What the background count reads from its snapshot (`Counting.measure`), in as few passes over
/// as little of the file as the figures allow: at 100,000,000 tiles a scan of `tiles` per figure
/// kept every figure of an app's database "counting" for minutes.
///
/// - The totals never read `tiles` row by row: its rows are counted on its smallest index, the
///   `mapbox://` ones by seeking each distinct template on the unique index, and the ambient tiles
///   (held by no pack) are the gaps between the tile ids `region_tiles_tile_id` lists in order:
///   only the rows in a gap are read.
/// - A pack is one pass over its memberships in tile id order (the `(region_id, tile_id)` index),
///   each tile's row read in rowid order, giving its count, its stored bytes and its runs at
///   once; the runs are built in memory as they come, with no sort.
///
/// The rows are read in place (`Statement.forEachRow`): no `Row` per tile.
enum Census {
    /// `[resources, tiles, mapbox tiles, ambient resources, ambient tiles, ambient bytes]`, as
    /// `Counting.finish(.totals)` adds them: `rowTotals` plus `ambientTotals`, which the count
    /// reads at once on two connections.
    static func totals(_ db: Database) throws -> [Int64] {
        try Counting.combine([Counting.Measured(figures: rowTotals(db)), Counting.Measured(figures: ambientTotals(db))]).figures
    }

    /// The totals but the ambient tiles: rows counted on indexes, ambient resources (few) by SQL.
    static func rowTotals(_ db: Database) throws -> [Int64] {
        let resources = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM resources") ?? 0
        // COUNT(*) alone: SQLite counts the entries of the table's smallest index.
        let tiles = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles") ?? 0
        let ambient = try Row.fetchOne(db, sql: """
            SELECT COUNT(*) AS n, COALESCE(SUM(\(AmbientCache.cost("r", key: "url"))), 0) AS bytes FROM resources r
              WHERE NOT EXISTS (SELECT 1 FROM region_resources WHERE resource_id = r.id)
            """)
        return [resources, tiles, try mapboxTiles(db), try ambient?.decode(forColumn: "n") ?? 0, 0, try ambient?.decode(forColumn: "bytes") ?? 0]
    }

    /// The ambient tiles and their cost, in the totals' places.
    static func ambientTotals(_ db: Database) throws -> [Int64] {
        let ambient = try ambientTiles(db)
        return [0, 0, 0, 0, ambient.tiles, ambient.bytes]
    }

    /// Tiles whose template is a `mapbox://` URL (`LIKE`, as the triggers count them): the
    /// distinct templates are few, each found by one seek on the unique index, and only the
    /// matching ones' entries are counted.
    static let mapboxSQL = """
        WITH RECURSIVE templates(v) AS (
          SELECT (SELECT MIN(url_template) FROM tiles)
          UNION ALL
          SELECT (SELECT MIN(url_template) FROM tiles WHERE url_template > v) FROM templates WHERE v IS NOT NULL)
        SELECT COALESCE(SUM((SELECT COUNT(*) FROM tiles WHERE url_template = v)), 0) FROM templates
          WHERE v LIKE 'mapbox://%'
        """

    static func mapboxTiles(_ db: Database) throws -> Int64 { try Int64.fetchOne(db, sql: mapboxSQL) ?? 0 }

    /// The ids `region_tiles` holds, in order, one pass over its `tile_id` index.
    static let memberIDsSQL = "SELECT tile_id FROM region_tiles ORDER BY tile_id"

    /// Rows and ambient cost of the tiles in an id range, read through the rowid.
    static func gapSQL(below: Bool, above: Bool) -> String {
        let bounds = [above ? "id > ?" : nil, below ? "id < ?" : nil].compactMap { $0 }
        let clause = bounds.isEmpty ? "" : " WHERE " + bounds.joined(separator: " AND ")
        return "SELECT COUNT(*), COALESCE(SUM(\(AmbientCache.cost("t", key: "url_template"))), 0) FROM tiles t" + clause
    }

    /// Tiles no membership names, and what they cost: the rows between consecutive distinct
    /// member ids (and before the first, after the last). A membership naming no tile counts
    /// nothing, as `NOT EXISTS` would not.
    static func ambientTiles(_ db: Database) throws -> (tiles: Int64, bytes: Int64) {
        var total: (tiles: Int64, bytes: Int64) = (0, 0)
        func add(above: Int64?, below: Int64?) throws {
            let statement = try db.cachedStatement(sql: gapSQL(below: below != nil, above: above != nil))
            try statement.setArguments(StatementArguments([above, below].compactMap { $0 }))
            try statement.forEachRow { row in
                total.tiles = try sum(total.tiles, row.int64(0), "the ambient tiles")
                total.bytes = try sum(total.bytes, row.int64(1), "the ambient cache's bytes")
            }
        }
        var previous: Int64?
        let members = try db.cachedStatement(sql: memberIDsSQL)
        try members.setArguments([])
        try members.forEachRow { row in
            // Only an integer names a tile (a real or a text in tile_id names none).
            guard let id = row.integer(0) else { return }
            if let last = previous, id == last { return }
            // Consecutive ids leave no gap: no lookup (`id - 1` cannot overflow: id > previous).
            if previous.map({ id - 1 != $0 }) ?? true { try add(above: previous, below: id) }
            previous = id
        }
        try add(above: previous, below: nil)
        return total
    }

    /// `a + b`, or an error naming the figure where the sum leaves 64 bits (a damaged file).
    static func sum(_ a: Int64, _ b: Int64, _ figure: String) throws -> Int64 {
        let (value, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw StoreError.invalidData("\(figure) add up past 2^63") }
        return value
    }
}

extension Counting {
    /// The parts' figures added up, their runs together.
    static func combine(_ parts: [Measured]) throws -> Measured {
        var whole = Measured(figures: parts.first?.figures.map { _ in 0 } ?? [])
        for part in parts where part.figures.count == whole.figures.count {
            for index in whole.figures.indices {
                whole.figures[index] = try Census.sum(whole.figures[index], part.figures[index], "a counted figure")
            }
            whole.runs += part.runs
        }
        return whole
    }
}

extension Census {
    /// A pack's tiles with their coordinates and stored length, in tile id order.
    static let packTilesSQL = """
        SELECT t.url_template, t.pixel_ratio, t.z, t.x, t.y, LENGTH(t.data)
          FROM region_tiles rt CROSS JOIN tiles t ON t.id = rt.tile_id WHERE rt.region_id = ?
        """

    /// The pack's figures (`[resources, resource bytes, tiles, tile bytes]`) and its runs.
    static func pack(_ region: RegionID, _ db: Database) throws -> Counting.Measured {
        let resources = try Row.fetchOne(db, sql: """
            SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(r.data)), 0) AS bytes
              FROM region_resources rr JOIN resources r ON r.id = rr.resource_id WHERE rr.region_id = ?
            """, arguments: [region.rawValue])
        var tiles: Int64 = 0
        var bytes: Int64 = 0
        var runs = RunBuilder()
        let statement = try db.cachedStatement(sql: packTilesSQL)
        try statement.setArguments([region.rawValue])
        try statement.forEachRow { row in
            tiles += 1
            bytes = try sum(bytes, row.int64(5), "the pack's stored bytes")
            runs.add(row.sqliteStatement)
        }
        return Counting.Measured(
            figures: [try resources?.decode(forColumn: "n") ?? 0, try resources?.decode(forColumn: "bytes") ?? 0, tiles, bytes],
            runs: runs.rows())
    }
}

/// A pack's runs built from its tiles in any order: per column, the ranges of rows seen so far.
/// Tiles mostly come in order (a download's ids follow its cover), so a tile usually extends its
/// column's last run; one out of order waits in `pending` until a merge. Memory is the runs'
/// (plus pending tiles), as when the runs were sorted out of SQLite.
struct RunBuilder {
    /// A column by its template's index in `templates`.
    private struct Key: Hashable {
        var template: Int
        var pixelRatio: Int64
        var z: Int64
        var x: Int64
    }

    private struct Ranges {
        var runs: [ClosedRange<Int64>] = []
        var pending: [ClosedRange<Int64>] = []

        mutating func add(_ y: Int64) {
            if let last = runs.last {
                if last.contains(y) { return }
                if y > last.upperBound {
                    // `last.upperBound < y`: no overflow.
                    if last.upperBound + 1 == y { runs[runs.count - 1] = last.lowerBound...y } else { runs.append(y...y) }
                    return
                }
                pending.append(y...y)
                if pending.count > runs.count + 1024 { merge() }
            } else {
                runs.append(y...y)
            }
        }

        mutating func merge() {
            guard !pending.isEmpty else { return }
            runs = Runs.union(runs + pending)
            pending = []
        }
    }

    private var templates: [String] = []
    private var templateIndex: [[UInt8]: Int] = [:]
    private var lastTemplate: [UInt8]?
    private var lastTemplateIndex = 0
    private var columns: [Key: Int] = [:]
    private var ranges: [(Key, Ranges)] = []
    private var last: (key: Key, slot: Int)?

    /// Adds the row's tile (columns 0-4: template, pixel ratio, z, x, y); a tile whose key is
    /// not text and integers names no file and has no run (`Runs.measure`'s rule).
    mutating func add(_ raw: SQLiteStatement) {
        guard sqlite3_column_type(raw, 0) == SQLITE_TEXT, (1...4).allSatisfy({ sqlite3_column_type(raw, $0) == SQLITE_INTEGER })
        else { return }
        let key = Key(
            template: template(raw), pixelRatio: sqlite3_column_int64(raw, 1), z: sqlite3_column_int64(raw, 2),
            x: sqlite3_column_int64(raw, 3))
        let slot: Int
        if let last, last.key == key {
            slot = last.slot
        } else if let known = columns[key] {
            slot = known
        } else {
            slot = ranges.count
            columns[key] = slot
            ranges.append((key, Ranges()))
        }
        last = (key, slot)
        ranges[slot].1.add(sqlite3_column_int64(raw, 4))
    }

    /// The template's index; its bytes are compared with the last row's first (a pack has few).
    private mutating func template(_ raw: SQLiteStatement) -> Int {
        let count = Int(sqlite3_column_bytes(raw, 0))
        guard let start = sqlite3_column_text(raw, 0) else { return index(of: []) }
        let bytes = UnsafeBufferPointer(start: start, count: count)
        // memcmp: a generic comparison of the bytes was a tenth of the pass's time.
        if let lastTemplate, lastTemplate.count == count,
            lastTemplate.withUnsafeBytes({ stored in stored.baseAddress.map { memcmp($0, start, count) == 0 } ?? (count == 0) })
        {
            return lastTemplateIndex
        }
        let copy = Array(bytes)
        lastTemplate = copy
        lastTemplateIndex = index(of: copy)
        return lastTemplateIndex
    }

    private mutating func index(of bytes: [UInt8]) -> Int {
        if let known = templateIndex[bytes] { return known }
        templateIndex[bytes] = templates.count
        templates.append(String(decoding: bytes, as: UTF8.self))
        return templates.count - 1
    }

    /// The runs, grouped by column (what `Runs.extents` and `Runs.finish` take).
    mutating func rows() -> [Runs.Row] {
        var rows: [Runs.Row] = []
        for index in ranges.indices {
            ranges[index].1.merge()
            let (key, column) = ranges[index]
            let named = Runs.Column(urlTemplate: templates[key.template], pixelRatio: key.pixelRatio, z: key.z, x: key.x)
            rows += column.runs.map { Runs.Row(column: named, minY: $0.lowerBound, maxY: $0.upperBound) }
        }
        return rows
    }
}
