import SQLiteDB

/// What an eviction or clear removed.
public struct EvictionReport: Equatable, Sendable {
    public var resources = 0
    public var tiles = 0
    public var bytes: Int64 = 0
    public init() {}

    mutating func add(_ other: EvictionReport) {
        resources += other.resources
        tiles += other.tiles
        bytes += other.bytes
    }
}

/// Size of the ambient cache: rows no pack holds.
public struct AmbientUsage: Equatable, Sendable {
    public var resources: Int
    public var tiles: Int
    /// What they cost on disk (`AmbientCache.cost`): their data and their rows.
    public var bytes: Int64
}

/// The ambient cache: rows no pack holds, sized by their disk cost (`cost`), trimmed to a limit (default 50 MiB)
/// least recently accessed first. Every query starts from "no membership row": pack rows are never candidates.
enum AmbientCache {
    static let defaultLimit: Int64 = 50 * 1024 * 1024
    static let limitKey = "ambient_limit"

    /// What a row costs on disk, "no content" rows included (a limit on data bytes missed what a removed pack of 404
    /// tiles left): its data plus a sixteenth for its last overflow page's unused end, its key thrice (row, unique
    /// index, the room both leave in thinned pages), its ETag, and 160 bytes of header, numbers and index entries: a
    /// little over what a row takes in a trim's half-empty pages (docs/benchmarks.md, "The ambient cache's cost").
    static func cost(_ row: String, key: String) -> String {
        let data = "COALESCE(LENGTH(\(row).data), 0)"
        return "(\(data) + \(data) / 16 + 3 * COALESCE(LENGTH(\(row).\(key)), 0) + COALESCE(LENGTH(\(row).etag), 0) + 160)"
    }

    static let unreferenced = """
        SELECT 0 AS tbl, id, \(cost("r", key: "url")) AS size, accessed FROM resources r
          WHERE NOT EXISTS (SELECT 1 FROM region_resources WHERE resource_id = r.id)
        UNION ALL
        SELECT 1 AS tbl, id, \(cost("t", key: "url_template")) AS size, accessed FROM tiles t
          WHERE NOT EXISTS (SELECT 1 FROM region_tiles WHERE tile_id = t.id)
        """

    static func usage(_ db: Database) throws -> AmbientUsage {
        let row = try Row.fetchOne(db, sql: """
            SELECT COALESCE(SUM(tbl = 0), 0) AS resources, COALESCE(SUM(tbl = 1), 0) AS tiles,
              COALESCE(SUM(size), 0) AS bytes FROM (\(unreferenced))
            """)
        guard let row else { return AmbientUsage(resources: 0, tiles: 0, bytes: 0) }  // an aggregate always has a row
        return try AmbientUsage(
            resources: row.decode(forColumn: "resources"), tiles: row.decode(forColumn: "tiles"),
            bytes: row.decode(forColumn: "bytes"))
    }

    /// The stored limit; the default when none is stored or it is no byte count (a negative would evict every row).
    static func limit(_ db: Database) throws -> Int64 {
        try Settings.value(limitKey, db).flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil } ?? defaultLimit
    }

    /// Deletes least recently accessed ambient rows until the ambient bytes fit in `limit`.
    static func trim(_ db: Database, to limit: Int64) throws -> EvictionReport {
        var report = EvictionReport()
        var bytes = try ambientBytes(db)
        while bytes > limit, try deleteOldest(db, bytes: &bytes, limit: limit, into: &report) {}
        return report
    }

    /// One bounded step of `trim`, a transaction each (a removal's background trim); false once the bytes fit `limit`.
    static func trimStep(_ db: Database, to limit: Int64) throws -> Bool {
        var bytes = try ambientBytes(db)
        guard bytes > limit else { return false }
        var report = EvictionReport()
        return try deleteOldest(db, bytes: &bytes, limit: limit, into: &report) && bytes > limit
    }

    private static func ambientBytes(_ db: Database) throws -> Int64 {
        try Counting.totals(db)?.ambient.bytes ?? usage(db).bytes
    }

    /// Deletes up to 256 least recently accessed ambient rows while `bytes` exceed `limit`; false when there was none.
    private static func deleteOldest(
        _ db: Database, bytes: inout Int64, limit: Int64, into report: inout EvictionReport
    ) throws -> Bool {
        let rows = try Row.fetchAll(db, sql: "\(unreferenced) ORDER BY accessed, id LIMIT 256")
        for row in rows where bytes > limit { bytes -= try delete(row, db, into: &report) }
        return !rows.isEmpty
    }

    static func clear(_ db: Database) throws -> EvictionReport {
        var report = EvictionReport()
        for row in try Row.fetchAll(db, sql: unreferenced) { try delete(row, db, into: &report) }
        return report
    }

    /// Deletes the row; returns its cost.
    @discardableResult
    private static func delete(_ row: Row, _ db: Database, into report: inout EvictionReport) throws -> Int64 {
        let isTile: Int = try row.decode(forColumn: "tbl")
        let id: Int64 = try row.decode(forColumn: "id")
        let size: Int64 = try row.decode(forColumn: "size") ?? 0
        report.bytes += size
        if isTile == 1 {
            try db.cachedStatement(sql: "DELETE FROM tiles WHERE id = ?").execute(arguments: [id])
            report.tiles += 1
        } else {
            try db.cachedStatement(sql: "DELETE FROM resources WHERE id = ?").execute(arguments: [id])
            report.resources += 1
        }
        return size
    }

    /// MapLibre's invalidate: expire ambient rows and mark them for revalidation.
    static func invalidate(_ db: Database) throws -> Int {
        try db.execute(sql: """
            UPDATE resources SET expires = 0, must_revalidate = 1
              WHERE id NOT IN (SELECT resource_id FROM region_resources)
            """)
        var changed = db.changesCount
        try db.execute(sql: """
            UPDATE tiles SET expires = 0, must_revalidate = 1
              WHERE id NOT IN (SELECT tile_id FROM region_tiles)
            """)
        changed += db.changesCount
        return changed
    }
}

/// PackFS's settings table (`packfs_settings`), created on first write.
enum Settings {
    static func value(_ key: String, _ db: Database) throws -> String? {
        guard try db.tableExists("packfs_settings") else { return nil }
        return try String.fetchOne(db, sql: "SELECT value FROM packfs_settings WHERE key = ?", arguments: [key])
    }

    static func set(_ key: String, _ value: String, _ db: Database) throws {
        try Migrations.ensureBookkeeping(db)
        try db.execute(
            sql: "INSERT OR REPLACE INTO packfs_settings (key, value) VALUES (?, ?)", arguments: [key, value])
    }
}

extension OfflineDatabase {
    /// The ambient cache's kept size (`Counting`); nil while it is still being counted.
    public func ambientUsage() throws -> AmbientUsage? { try read { try Counting.totals($0)?.ambient } }

    public func ambientLimit() throws -> Int64 { try read(AmbientCache.limit) }

    /// Sets the ambient limit and trims the cache to it at once.
    @discardableResult
    public func setAmbientLimit(_ bytes: Int64) throws -> EvictionReport {
        guard bytes >= 0 else { throw StoreError.invalidData("ambient cache limit \(bytes) is negative") }
        let report = try write { batch -> EvictionReport in
            try Settings.set(AmbientCache.limitKey, String(bytes), batch.database)
            return try AmbientCache.trim(batch.database, to: bytes)
        }
        try incrementalVacuum()
        return report
    }

    /// Trims the ambient cache to its limit.
    @discardableResult
    public func trimAmbient() throws -> EvictionReport {
        let report = try write { try AmbientCache.trim($0.database, to: AmbientCache.limit($0.database)) }
        try incrementalVacuum()
        return report
    }

    @discardableResult
    public func clearAmbient() throws -> EvictionReport {
        let report = try write { try AmbientCache.clear($0.database) }
        try incrementalVacuum()
        return report
    }

    /// Marks every ambient row for revalidation; returns how many rows.
    @discardableResult
    public func invalidateAmbient() throws -> Int { try write { try AmbientCache.invalidate($0.database) } }
}
