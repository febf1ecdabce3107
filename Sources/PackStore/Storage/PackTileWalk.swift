import Basics
import SQLiteDB

/// Whole-pack questions for export and for packs without a stored style: a pack's tile sets, and every
/// tile of one set in z, x, y order. Both walk the `tiles` unique index and the membership index a page at
/// a time, so a pack of a million tiles streams in constant memory without a long read transaction.
extension OfflineDatabase {
    /// Tiles per page of `forEachPackTile`.
    static let walkPage = 2_000

    /// The pack's tile sets (template and key pixel ratio), in template order: a skip scan seeks each template, then
    /// each ratio (one query for both would walk all of a template's entries); `packHoldsSetSQL` tests each set.
    public func packTileSets(of region: RegionID) throws -> [TileColumnSet] {
        try read { db in
            if try Self.extentsReady(region, db) { return try Self.extentTileSets(of: region, db) }
            let nextTemplate = try db.cachedStatement(sql: "SELECT url_template FROM tiles WHERE url_template > ? ORDER BY url_template LIMIT 1")
            let nextRatio = try db.cachedStatement(sql: """
                SELECT pixel_ratio FROM tiles WHERE url_template = ? AND pixel_ratio > ? ORDER BY pixel_ratio LIMIT 1
                """)
            let held = try db.cachedStatement(sql: try Self.packHoldsSetSQL(region, db))
            var sets: [TileColumnSet] = []
            // Text sorts above every number and below every blob: from "" the scan meets only text
            // templates, and ends at the first blob. A ratio that is no integer ends its template's.
            var template = ""
            while let value = try DatabaseValue.fetchOne(nextTemplate, arguments: [template]),
                case .string(let text) = value.storage
            {
                template = text
                var ratio = Int64.min
                while let value = try DatabaseValue.fetchOne(nextRatio, arguments: [text, ratio]), case .int64(let next) = value.storage {
                    ratio = next
                    guard let pixelRatio = Int(exactly: next),
                        try Int.fetchOne(held, arguments: [text, next, region.rawValue]) != nil
                    else { continue }
                    sets.append(TileColumnSet(region: region, urlTemplate: text, pixelRatio: pixelRatio))
                }
            }
            return sets
        }
    }

    /// Whether the pack holds a tile with content of (template, ratio): through the template's index entries when the
    /// pack is known to hold a quarter of the database or more, else through its own memberships (CROSS JOIN keeps that
    /// order), so a small pack costs itself, not the packs before it (docs/benchmarks.md, "A pack among many").
    private static func packHoldsSetSQL(_ region: RegionID, _ db: Database) throws -> String {
        let pack = try Counting.counts(of: region, db)
        let totals = try Counting.totals(db)
        // Kept counts are read from the file: a damaged one near Int.max must not overflow here.
        let quadrupled = (pack?.tiles ?? 0).multipliedReportingOverflow(by: 4)
        if pack == nil || totals == nil || (!quadrupled.overflow && quadrupled.partialValue < (totals?.tiles ?? 0)) {
            return """
                SELECT 1 FROM region_tiles rt CROSS JOIN tiles t ON t.id = rt.tile_id
                  WHERE t.url_template = ? AND t.pixel_ratio = ? AND rt.region_id = ? AND t.data IS NOT NULL LIMIT 1
                """
        }
        return TreeSQL.sampleTile.sql
    }
}

/// Something that reads the store at one snapshot: the database's readers, or a write transaction's
/// connection (`StoreBatch`), which sees its uncommitted writes (a patch checks its hash before committing).
public protocol StoreSnapshot {
    func reading<T>(_ body: (Database) throws -> T) throws -> T
}

extension OfflineDatabase: StoreSnapshot {
    public func reading<T>(_ body: (Database) throws -> T) throws -> T { try read(body) }
}

extension StoreBatch: StoreSnapshot {
    public func reading<T>(_ body: (Database) throws -> T) throws -> T { try body(db) }
}

extension StoreSnapshot {
    /// Calls `body` with every tile with content of `set` in its pack, by z, x, then y as stored (a TMS
    /// source's rows are the server's); with `descendingRows`, each column's rows from the highest down
    /// (TMS order from an XYZ source, as MBTiles and its hash want). Non-integer coordinates are skipped,
    /// as the mount skips them; complete extents bound the walk (ExtentReads.swift). `body` runs outside
    /// the read transactions, on a page's tiles copied out.
    public func forEachPackTile(
        _ set: TileColumnSet, descendingRows: Bool = false,
        _ body: (_ z: Int, _ x: Int, _ storedY: Int, _ data: StoredData) throws -> Void
    ) throws {
        var page: [(z: Int, x: Int, y: Int, data: StoredData)] = []
        page.reserveCapacity(OfflineDatabase.walkPage)
        try forEachPackTileBytes(
            set, descendingRows: descendingRows,
            pageEnd: {
                for tile in page { try body(tile.z, tile.x, tile.y, tile.data) }
                page.removeAll(keepingCapacity: true)
            },
            { z, x, y, bytes in page.append((z, x, y, bytes.stored)) })
    }

    /// `forEachPackTile`'s tiles with their bytes where SQLite holds them: `body` runs inside the page's
    /// read transaction (keep it short), `pageEnd` after each page's transaction has ended.
    public func forEachPackTileBytes(
        _ set: TileColumnSet, descendingRows: Bool = false, pageEnd: () throws -> Void = {},
        _ body: (_ z: Int, _ x: Int, _ storedY: Int, _ bytes: StoredBytes) throws -> Void
    ) throws {
        if let columns = try extentColumns(of: set) {
            for column in columns { try forEachTile(set, in: column, descending: descendingRows, pageEnd: pageEnd, body) }
            return
        }
        if descendingRows {
            // Column by column through the index: one seek finds the next, then its rows downward.
            var after = (z: Int.min, x: Int.min)
            while let column = try nextColumn(of: set, after: after) {
                try forEachTile(set, in: (column.z, column.x, Int.min...Int.max), descending: true, pageEnd: pageEnd, body)
                after = column
            }
            return
        }
        var after = (z: Int.min, x: Int.min, y: Int.min)
        while true {
            let (count, last) = try tilePage(set, after: after, body)
            try pageEnd()
            guard count == OfflineDatabase.walkPage, let last else { return }
            after = last
        }
    }

    /// The first column of the set's template after `after` holding any row, the pack's or not; nil past the last.
    private func nextColumn(of set: TileColumnSet, after: (z: Int, x: Int)) throws -> (z: Int, x: Int)? {
        try reading { db in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: """
                    SELECT z, x FROM tiles WHERE url_template = ? AND pixel_ratio = ? AND (z, x) > (?, ?)
                      AND typeof(z) = 'integer' AND typeof(x) = 'integer' ORDER BY z, x LIMIT 1
                    """),
                arguments: [set.urlTemplate, set.pixelRatio, after.z, after.x])
            guard let row else { return nil }
            return (try row.stored(at: 0, "tiles.z"), try row.stored(at: 1, "tiles.x"))
        }
    }

    /// The set's columns by z then x, each with its rows' extent; nil without complete extents.
    private func extentColumns(of set: TileColumnSet) throws -> [(z: Int, x: Int, rows: ClosedRange<Int>)]? {
        try reading { db in
            guard try OfflineDatabase.extentsReady(set.region, db) else { return nil }
            return try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT z, x, min_y, max_y FROM packfs_pack_extents
                      WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? ORDER BY z, x
                    """),
                arguments: [set.region.rawValue, set.urlTemplate, set.pixelRatio]
            ).compactMap { row in
                // Lenient, not `decode` (which throws): a damaged or inverted extent row is left out.
                guard let z: Int = row.lenient("z"), let x: Int = row.lenient("x"), let low: Int = row.lenient("min_y"),
                    let high: Int = row.lenient("max_y"), low <= high
                else { return nil }
                return (z, x, low...high)
            }
        }
    }

    /// `forEachPackTileBytes` in one column, a page at a time, rows upward or (`descending`) downward.
    private func forEachTile(
        _ set: TileColumnSet, in column: (z: Int, x: Int, rows: ClosedRange<Int>), descending: Bool,
        pageEnd: () throws -> Void, _ body: (_ z: Int, _ x: Int, _ storedY: Int, _ bytes: StoredBytes) throws -> Void
    ) throws {
        var rows = column.rows
        let order = descending ? "DESC" : ""
        while true {
            let (count, last) = try reading { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT y, data, compressed FROM tiles t
                      WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ? AND y BETWEEN ? AND ?
                        AND typeof(y) = 'integer' AND data IS NOT NULL AND \(OfflineDatabase.TreeSQL.member)
                      ORDER BY y \(order) LIMIT ?
                    """)
                try statement.setArguments([
                    set.urlTemplate, set.pixelRatio, column.z, column.x, rows.lowerBound, rows.upperBound,
                    set.region.rawValue, OfflineDatabase.walkPage,
                ])
                var last: Int?
                let count = try statement.forEachRow { row in
                    let y = try row.storedInt(0, "tiles.y")
                    try row.withStoredBytes(1, of: "tiles") { try body(column.z, column.x, y, $0) }
                    last = y
                }
                return (count, last)
            }
            try pageEnd()
            guard count == OfflineDatabase.walkPage, let last else { return }
            if descending {
                guard last > rows.lowerBound else { return }
                rows = rows.lowerBound...(last - 1)
            } else {
                guard last < rows.upperBound else { return }
                rows = (last + 1)...rows.upperBound
            }
        }
    }

    /// One page of the set's tiles after `after` in z, x, y order: how many, and the last.
    private func tilePage(
        _ set: TileColumnSet, after: (z: Int, x: Int, y: Int),
        _ body: (_ z: Int, _ x: Int, _ storedY: Int, _ bytes: StoredBytes) throws -> Void
    ) throws -> (Int, (z: Int, x: Int, y: Int)?) {
        try reading { db in
            let statement = try db.cachedStatement(sql: """
                SELECT z, x, y, data, compressed FROM tiles t
                  WHERE url_template = ? AND pixel_ratio = ? AND (z, x, y) > (?, ?, ?)
                    AND typeof(z) = 'integer' AND typeof(x) = 'integer' AND typeof(y) = 'integer'
                    AND data IS NOT NULL AND \(OfflineDatabase.TreeSQL.member)
                  ORDER BY z, x, y LIMIT ?
                """)
            try statement.setArguments([
                set.urlTemplate, set.pixelRatio, after.z, after.x, after.y, set.region.rawValue, OfflineDatabase.walkPage,
            ])
            var last: (z: Int, x: Int, y: Int)?
            let count = try statement.forEachRow { row in
                let tile = (z: try row.storedInt(0, "tiles.z"), x: try row.storedInt(1, "tiles.x"), y: try row.storedInt(2, "tiles.y"))
                try row.withStoredBytes(3, of: "tiles") { try body(tile.z, tile.x, tile.y, $0) }
                last = tile
            }
            return (count, last)
        }
    }
}
