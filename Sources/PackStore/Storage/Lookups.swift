import Basics
import SQLiteDB

/// Bulk questions the downloader asks: which of these are stored already, and what a pack holds.
/// Each runs in one read transaction (a snapshot; in a mount it never waits for the writer).
extension OfflineDatabase {
    /// The validators of every key in `keys` that is stored (content or "no content").
    public func storedTiles(_ keys: [TileKey]) throws -> [TileKey: StoredValidators] {
        try validators(of: keys, in: "tiles WHERE \(TileKey.match)") { $0.arguments }
    }

    /// Whether any tile with this URL template is stored; if none is, a downloader need not ask `storedTiles`.
    public func hasTiles(urlTemplate: String) throws -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tiles WHERE url_template = ?)",
                              arguments: [urlTemplate]) ?? false
        }
    }

    /// The validators of every URL in `urls` that is stored.
    public func storedResources(_ urls: [String]) throws -> [String: StoredValidators] {
        try validators(of: urls, in: "resources WHERE url = ?") { [$0] }
    }

    /// The validators of the rows `source` (a table and a condition) finds for each key.
    private func validators<Key: Hashable>(
        of keys: [Key], in source: String, _ arguments: (Key) -> StatementArguments
    ) throws -> [Key: StoredValidators] {
        try read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT expires, modified, etag, must_revalidate, accessed FROM \(source)")
            var found: [Key: StoredValidators] = [:]
            for key in keys {
                if let row = try Row.fetchOne(statement, arguments: arguments(key)) {
                    found[key] = try StoredValidators(
                        headers: Self.headers(from: row), accessed: row.decode(forColumn: "accessed"))
                }
            }
            return found
        }
    }

    /// Every tile key a pack holds.
    public func tileKeys(of region: RegionID) throws -> [TileKey] {
        try read { db in
            try Row.fetchAll(db, sql: Self.packTileKeys, arguments: [region.rawValue]).map(Self.tileKey)
        }
    }

    /// Every resource URL a pack holds.
    public func resourceURLs(of region: RegionID) throws -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT r.url FROM region_resources rr JOIN resources r ON r.id = rr.resource_id
                WHERE rr.region_id = ?
                """, arguments: [region.rawValue])
        }
    }

    /// Tiles in the whole database (only `includingAll`, for `--max-tiles`: counting them is a pass over
    /// `tiles`) and those with a `mapbox://` template (MapLibre's limit): kept figures (`Counting`), or
    /// counted now while not kept yet (a file an app filled, before the mount's background count).
    public func tileTotals(includingAll: Bool) throws -> (all: Int?, mapbox: Int) {
        try read { db in
            if let totals = try Counting.totals(db) { return (totals.tiles, totals.mapboxTiles) }
            let all = includingAll ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles") ?? 0 : nil
            return (all, try Int.fetchOne(db, sql: Self.mapboxTileCount) ?? 0)
        }
    }

    /// MapLibre's count, `url_template LIKE 'mapbox://%'`, over only the parts of the unique index where
    /// a match can sit (the LIKE alone scans every tile): text starting with `M` or `m` (LIKE ignores
    /// ASCII case), and blobs, which sort after all text and which LIKE reads as text.
    static let mapboxTileCount = """
        SELECT COUNT(*) FROM tiles WHERE (url_template >= 'M' AND url_template < 'N'
          OR url_template >= 'm' AND url_template < 'n' OR url_template >= x'')
          AND url_template LIKE 'mapbox://%'
        """

    /// Drops tiles and resources from a pack in one transaction; rows no other pack holds become ambient cache.
    public func unlink(tiles: [TileKey], resources: [String], from region: RegionID) throws {
        guard !tiles.isEmpty || !resources.isEmpty else { return }
        try write { batch in try batch.unlink(tiles: tiles, resources: resources, from: region) }
    }
}

/// What the downloader needs of a stored row: its validators, and when it was last stored or
/// revalidated (a resumed refresh skips what it already did: PendingRefresh.swift).
public struct StoredValidators: Equatable, Sendable {
    public var headers: CacheHeaders
    public var accessed: Int64
}

extension OfflineDatabase {
    /// For a pack none of whose tiles has content (every one stored as "no content": the server
    /// answered 404 or 204): one of them. Nil when some tile has content, or the pack holds none.
    public func contentlessTileSample(of region: RegionID) throws -> TileKey? {
        try read { db in
            let held = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id
                WHERE rt.region_id = ? AND t.data IS NOT NULL)
                """, arguments: [region.rawValue]) ?? false
            guard !held,
                let row = try Row.fetchOne(db, sql: Self.packTileKeys + " LIMIT 1", arguments: [region.rawValue])
            else { return nil }
            return try Self.tileKey(row)
        }
    }

    /// The keys of a pack's tiles, read by `tileKey`.
    private static let packTileKeys = """
        SELECT t.url_template, t.pixel_ratio, t.z, t.x, t.y FROM region_tiles rt
        JOIN tiles t ON t.id = rt.tile_id WHERE rt.region_id = ?
        """

    private static func tileKey(_ row: Row) throws -> TileKey {
        try TileKey(
            urlTemplate: row.decode(atIndex: 0), pixelRatio: row.decode(atIndex: 1), z: row.decode(atIndex: 2),
            x: row.decode(atIndex: 3), y: row.decode(atIndex: 4))
    }
}
