import CSQLite
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// A pack's count when the totals are known (else `CensusPass`): one pass over its memberships in tile id order,
/// reading each tile's row in place (`Statement.forEachRow`: no `Row` per tile) for count, bytes and runs at once.
enum Census {
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

    static let packResourcesSQL = """
        SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(r.data)), 0) AS bytes
          FROM region_resources rr JOIN resources r ON r.id = rr.resource_id WHERE rr.region_id = ?
        """

    /// The pack's resources and their stored bytes.
    static func packResources(_ region: RegionID, _ db: Database) throws -> [Int64] {
        let resources = try Row.fetchOne(db, sql: packResourcesSQL, arguments: [region.rawValue])
        return [try resources?.decode(forColumn: "n") ?? 0, try resources?.decode(forColumn: "bytes") ?? 0]
    }

    /// The pack's figures (`[resources, resource bytes, tiles, tile bytes]`) and its runs.
    static func pack(_ region: RegionID, _ db: Database) throws -> Counting.Measured {
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
            figures: try packResources(region, db) + [tiles, bytes],
            runs: runs.rows())
    }
}

/// A pack's runs built from its tiles in any order, per column. Tiles mostly come in order (a download's ids
/// follow its cover), so a tile usually extends its column's last run; one out of order waits in `pending`.
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
    private var lastTemplate = LastTemplate<Int>()
    private var columns: [Key: Int] = [:]
    private var ranges: [(Key, Ranges)] = []
    private var last: (key: Key, slot: Int)?

    /// Adds the row's tile (columns 0-4: template, pixel ratio, z, x, y); one naming no file has no run (`Runs`).
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

    /// The (text) template's index.
    private mutating func template(_ raw: SQLiteStatement) -> Int {
        if let known = lastTemplate.known(raw, type: SQLITE_TEXT) { return known }
        let found = index(of: lastTemplate.bytes)
        lastTemplate.remember(found)
        return found
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

/// What was worked out for the last row's template (column 0), for following rows with the same bytes (a file has
/// few templates, met in long stretches); compared with memcmp, as a generic comparison weighs on the whole pass.
struct LastTemplate<Value> {
    private var type = SQLITE_NULL
    /// The last row's template.
    private(set) var bytes: [UInt8] = []
    private var value: Value?

    /// The value remembered for the row's template when it is the last row's; else nil, and the row's bytes are kept
    /// for `remember`. `type` is the column's, text or blob: reading another type's bytes would convert it in place.
    mutating func known(_ raw: SQLiteStatement, type: Int32) -> Value? {
        let start = type == SQLITE_BLOB ? sqlite3_column_blob(raw, 0) : UnsafeRawPointer(sqlite3_column_text(raw, 0))
        let count = Int(sqlite3_column_bytes(raw, 0))
        if let value, type == self.type, bytes.count == count,
            bytes.withUnsafeBytes({ kept in
                guard count > 0 else { return true }
                guard let kept = kept.baseAddress, let start else { return false }
                return memcmp(kept, start, count) == 0
            })
        {
            return value
        }
        self.type = type
        bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
        value = nil
        return nil
    }

    mutating func remember(_ value: Value) { self.value = value }
}
