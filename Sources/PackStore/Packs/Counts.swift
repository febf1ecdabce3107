import SQLiteDB

/// What one pack holds, in MapLibre's terms: counts of rows and their stored bytes.
public struct PackCounts: Equatable, Sendable {
    public var resources = 0
    public var resourceBytes: Int64 = 0
    public var tiles = 0
    public var tileBytes: Int64 = 0
    public init() {}
}

/// Database-wide figures for `status.json` and `packfs list`.
public struct DatabaseCounts: Equatable, Sendable {
    public var packs: Int
    /// False while the figures below are still being counted (`Counting`): they read 0 then.
    public var counted: Bool
    public var resources: Int
    public var tiles: Int
    /// Size of the file in use (pages minus free pages).
    public var bytes: Int64
    public var ambient: AmbientUsage
    public var ambientLimit: Int64
}

extension OfflineDatabase {
    /// Counts through the membership tables' unique (region_id, ...) indexes: no table scan, but as long as the
    /// pack is large (`Counting` keeps these figures; this counts them once).
    static func counts(of region: RegionID, _ db: Database) throws -> PackCounts {
        var counts = PackCounts()
        (counts.resources, counts.resourceBytes) = try count(db, Census.packResourcesSQL, region)
        (counts.tiles, counts.tileBytes) = try count(db, """
            SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(t.data)), 0) AS bytes
            FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id
            WHERE rt.region_id = ?
            """, region)
        return counts
    }

    /// Rows and bytes from an aggregate query (which always answers one row).
    private static func count(_ db: Database, _ sql: String, _ region: RegionID) throws -> (Int, Int64) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [region.rawValue]) else { return (0, 0) }
        return try (row.decode(forColumn: "n"), row.decode(forColumn: "bytes"))
    }

    /// The kept figures (`Counting`) and the file's size, in constant time; packs are few, so they are counted.
    public func databaseCounts() throws -> DatabaseCounts {
        try read { db in
            let totals = try Counting.totals(db)
            return DatabaseCounts(
                packs: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM regions \(Removals.visible(db))") ?? 0,
                counted: totals != nil,
                resources: totals?.resources ?? 0, tiles: totals?.tiles ?? 0,
                bytes: try DiskQuota.usage(db).usedBytes,
                ambient: totals?.ambient ?? AmbientUsage(resources: 0, tiles: 0, bytes: 0),
                ambientLimit: try AmbientCache.limit(db))
        }
    }
}

extension StoreBatch {
    /// The pack's figures inside a write transaction, before it changes them: the kept ones, or counted now.
    public func counts(of region: RegionID) throws -> PackCounts {
        try Counting.counts(of: region, db) ?? OfflineDatabase.counts(of: region, db)
    }
}
