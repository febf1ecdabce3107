import Basics
import CSQLite
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// The count of a database whose totals are not known: the totals and every uncounted pack from one pass over
/// `tiles`' rows in id order, in chunks of `span` ids that several connections of one snapshot take in turn, with
/// one seek per distinct `region_id` per chunk on the memberships' index (docs/internals.md, "Figures are kept,
/// not counted"). A membership naming no tile counts nothing, as a join would not.
struct CensusPass: Sendable {
    /// The packs counted with the totals, in the order of `Measured` after the totals'.
    let packs: [RegionID]
    /// Ids a chunk covers: its holders are one array of this many slots.
    let span: Int64
    /// The lowest id the next chunk may start at; nil once every chunk is taken.
    private let next = LockedState<Int64?>(Int64.min)
    /// Every distinct `region_id` of the snapshot (`holdersSQL`), found by the first chunk reader for them all.
    private let keys = LockedState<[DatabaseValue]?>(nil)

    init(packs: [RegionID], span: Int64 = 1 << 20) {
        self.packs = packs
        self.span = max(1, span)
    }

    /// The parts reading one snapshot, `workers` chunk readers and one for resources: each gives the totals' and
    /// each pack's `Measured`, which add up.
    func parts(workers: Int, stopped: @escaping @Sendable () -> Bool) -> [@Sendable (Database) throws -> [Counting.Measured]] {
        let readers: [@Sendable (Database) throws -> [Counting.Measured]] = (0..<max(1, workers)).map { _ in
            { db in try self.readChunks(db, stopped: stopped) }
        }
        return readers + [{ db in try self.resources(db) }]
    }

    /// A chunk's rows, with the `mapbox://` test per distinct template and the ambient cost per run of ambient rows.
    static let tilesSQL = """
        SELECT t.url_template, t.pixel_ratio, t.z, t.x, t.y, LENGTH(t.data), t.id FROM tiles t WHERE t.id BETWEEN ? AND ?
        """
    static let ambientCostSQL = "SELECT COALESCE(SUM(\(AmbientCache.cost("t", key: "url_template"))), 0) FROM tiles t WHERE t.id BETWEEN ? AND ?"
    /// The triggers' test of a template, asked once per distinct template.
    static let mapboxSQL = "SELECT ? LIKE 'mapbox://%'"
    static let membersSQL = "SELECT tile_id FROM region_tiles WHERE region_id = ? AND tile_id BETWEEN ? AND ?"
    static let firstIDSQL = "SELECT id FROM tiles WHERE id >= ? ORDER BY id LIMIT 1"
    /// Every distinct `region_id` value (any type), one seek each on the memberships' index.
    static let holdersSQL = """
        WITH RECURSIVE holders(v) AS (
          SELECT (SELECT MIN(region_id) FROM region_tiles)
          UNION ALL
          SELECT (SELECT MIN(region_id) FROM region_tiles WHERE region_id > v) FROM holders WHERE v IS NOT NULL)
        SELECT v FROM holders WHERE v IS NOT NULL
        """

    /// Takes the next chunk: `span` ids on from the first id at or after the last one's end (a gap costs one seek).
    private func take(_ db: Database) throws -> ClosedRange<Int64>? {
        try next.withLock { state in
            guard let from = state,
                let first = try Int64.fetchOne(db.cachedStatement(sql: Self.firstIDSQL), arguments: [from])
            else {
                state = nil
                return nil
            }
            let (end, overflow) = first.addingReportingOverflow(span - 1)
            let last = overflow ? Int64.max : end
            state = last == Int64.max ? nil : last + 1
            return first...last
        }
    }

    private func holderKeys(_ db: Database) throws -> [DatabaseValue] {
        try keys.withLock { keys in
            if let keys { return keys }
            let found = try DatabaseValue.fetchAll(db, sql: Self.holdersSQL)
            guard found.count < Int32.max else {
                throw StoreError.invalidData("region_tiles names more packs than a count can hold")
            }
            keys = found
            return found
        }
    }

    private func readChunks(_ db: Database, stopped: () -> Bool) throws -> [Counting.Measured] {
        var tally = Tally(packs: packs, keys: try holderKeys(db), span: span)
        while !stopped(), let chunk = try take(db) {
            try tally.holders(of: chunk, db)
            try tally.count(chunk, db)
        }
        return tally.measured()
    }

    /// The resources' figures: few rows, counted by SQL.
    private func resources(_ db: Database) throws -> [Counting.Measured] {
        let resources = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM resources") ?? 0
        let ambient = try Row.fetchOne(db, sql: """
            SELECT COUNT(*) AS n, COALESCE(SUM(\(AmbientCache.cost("r", key: "url"))), 0) AS bytes FROM resources r
              WHERE NOT EXISTS (SELECT 1 FROM region_resources WHERE resource_id = r.id)
            """)
        let totals: [Int64] = [resources, 0, 0, try ambient?.decode(forColumn: "n") ?? 0, 0, try ambient?.decode(forColumn: "bytes") ?? 0]
        return [Counting.Measured(figures: totals)] + (try packs.map { Counting.Measured(figures: try Census.packResources($0, db) + [0, 0]) })
    }
}

/// One chunk reader's figures, and the holders of the chunk it is on.
private struct Tally {
    var tiles: Int64 = 0
    var mapbox: Int64 = 0
    var ambientTiles: Int64 = 0
    var ambientBytes: Int64 = 0
    var packTiles: [Int64]
    var packBytes: [Int64]
    var runs: [RunBuilder]
    /// Distinct `region_id` values, and the pack each is (nil: a pack not counted now).
    let keys: [DatabaseValue]
    let keyPack: [Int?]
    /// Per id of the chunk: 0 no holder, k + 1 held by `keys[k]` alone, -1 by those in `shared`.
    var holder: [Int32]
    var shared: [Int64: [Int32]] = [:]
    /// Whether the last row's template is a `mapbox://` one (1) or not (0).
    var templates = LastTemplate<Int64>()

    init(packs: [RegionID], keys: [DatabaseValue], span: Int64) {
        packTiles = packs.map { _ in 0 }
        packBytes = packTiles
        runs = packs.map { _ in RunBuilder() }
        self.keys = keys
        var index: [Int64: Int] = [:]
        for (slot, pack) in packs.enumerated() { index[pack.rawValue] = slot }
        keyPack = keys.map { key in if case .int64(let value) = key.storage { index[value] } else { nil } }
        holder = Array(repeating: 0, count: Int(clamping: span))
    }

    /// Marks who holds each id of `chunk` (its ids within `span` of its start: offsets fit).
    mutating func holders(of chunk: ClosedRange<Int64>, _ db: Database) throws {
        for index in holder.indices { holder[index] = 0 }
        shared.removeAll(keepingCapacity: true)
        let members = try db.cachedStatement(sql: CensusPass.membersSQL)
        for (k, key) in keys.enumerated() {
            try members.setArguments([key, chunk.lowerBound, chunk.upperBound])
            let mark = Int32(k + 1)
            try members.forEachRow { row in
                let raw = row.sqliteStatement
                // Only an integer names a tile (a real or a text in tile_id names none).
                guard sqlite3_column_type(raw, 0) == SQLITE_INTEGER else { return }
                let id = sqlite3_column_int64(raw, 0)
                let offset = Int(id &- chunk.lowerBound)
                switch holder[offset] {
                case 0: holder[offset] = mark
                case -1: shared[id, default: []].append(mark - 1)
                case let first:
                    shared[id] = [first - 1, mark - 1]
                    holder[offset] = -1
                }
            }
        }
    }

    /// Reads the chunk's rows in id order, crediting each to its packs or the ambient cache (cost: a sum per run).
    mutating func count(_ chunk: ClosedRange<Int64>, _ db: Database) throws {
        let rows = try db.cachedStatement(sql: CensusPass.tilesSQL)
        try rows.setArguments([chunk.lowerBound, chunk.upperBound])
        var ambientRuns: [ClosedRange<Int64>] = []
        var ambientRun: ClosedRange<Int64>?
        try rows.forEachRow { row in
            let raw = row.sqliteStatement
            tiles += 1
            mapbox += try isMapbox(raw, db)
            let id = sqlite3_column_int64(raw, 6)
            let held = holder[Int(id &- chunk.lowerBound)]
            if held == 0 {
                ambientTiles += 1
                ambientRun = (ambientRun?.lowerBound ?? id)...id
                return
            }
            if let run = ambientRun { ambientRuns.append(run) }
            ambientRun = nil
            if held > 0 { return try credit(Int(held) - 1, raw) }
            for k in shared[id] ?? [] { try credit(Int(k), raw) }
        }
        if let run = ambientRun { ambientRuns.append(run) }
        let cost = try db.cachedStatement(sql: CensusPass.ambientCostSQL)
        for run in ambientRuns {
            let bytes = try Int64.fetchOne(cost, arguments: [run.lowerBound, run.upperBound]) ?? 0
            ambientBytes = try Census.sum(ambientBytes, bytes, "the ambient cache's bytes")
        }
    }

    /// 1 when the row's template is a `mapbox://` one, as the triggers' `LIKE` says, asked once per run of a template.
    private mutating func isMapbox(_ raw: SQLiteStatement, _ db: Database) throws -> Int64 {
        let type = sqlite3_column_type(raw, 0)
        // Only text and blobs are kept (`LastTemplate.known`).
        let keep = type == SQLITE_TEXT || type == SQLITE_BLOB
        if keep, let known = templates.known(raw, type: type) { return known }
        let template = DatabaseValue(sqliteStatement: raw, index: 0)
        let answer = try Int64.fetchOne(db.cachedStatement(sql: CensusPass.mapboxSQL), arguments: [template]) ?? 0
        if keep { templates.remember(answer) }
        return answer
    }

    private mutating func credit(_ key: Int, _ raw: SQLiteStatement) throws {
        guard let pack = keyPack[key] else { return }
        packTiles[pack] += 1
        packBytes[pack] = try Census.sum(packBytes[pack], sqlite3_column_int64(raw, 5), "the pack's stored bytes")
        runs[pack].add(raw)
    }

    mutating func measured() -> [Counting.Measured] {
        let totals = Counting.Measured(figures: [0, tiles, mapbox, 0, ambientTiles, ambientBytes])
        return [totals] + packTiles.indices.map { pack in
            Counting.Measured(figures: [0, 0, packTiles[pack], packBytes[pack]], runs: runs[pack].rows())
        }
    }
}
