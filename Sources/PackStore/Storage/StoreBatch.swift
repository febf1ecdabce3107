import Basics
import FoundationEssentials
import SQLiteDB

/// The writes of one transaction (`OfflineDatabase.write`). Updates keep row ids (update, else insert, as
/// MapLibre does; tiles by an upsert); pack membership is `INSERT OR IGNORE`.
public struct StoreBatch {
    let db: Database
    let now: Int64
    /// Cached statuses, which `setStatus` drops once it commits (nil: the caller drops them all itself).
    let statuses: PackStatusCache?
    /// The mount's note that rows were switched (`SwitchedRows`); nil outside `OfflineDatabase.write`.
    let switchedRows: SwitchedRowsFlag?

    init(db: Database, now: Int64 = unixNow(), statuses: PackStatusCache? = nil, switchedRows: SwitchedRowsFlag? = nil) {
        self.db = db
        self.now = now
        self.statuses = statuses
        self.switchedRows = switchedRows
    }

    /// Stores a resource (content and cache headers) and returns its row id.
    @discardableResult
    public func putResource(
        url: String, kind: ResourceKind, data: StoredData, headers: CacheHeaders
    ) throws -> ResourceID {
        let values: StatementArguments = [
            kind.rawValue, headers.expires, headers.modified, headers.etag, data.bytes,
            data.compressed, now, headers.mustRevalidate, url,
        ]
        try db.cachedStatement(sql: """
            UPDATE resources SET kind = ?, expires = ?, modified = ?, etag = ?, data = ?,
              compressed = ?, accessed = ?, must_revalidate = ? WHERE url = ?
            """).execute(arguments: values)
        if db.changesCount == 0 {
            try db.cachedStatement(sql: """
                INSERT INTO resources (kind, expires, modified, etag, data, compressed, accessed,
                  must_revalidate, url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: values)
            return ResourceID(rawValue: db.lastInsertedRowID)
        }
        guard let id = try resourceID(url: url) else {
            throw StoreError.invalidData("resource \(url) was updated but cannot be found")
        }
        return id
    }

    /// Stores a tile in one statement and returns its row id; an existing row keeps its id (the upsert still
    /// uses up a sequence number). Pass `contentSize`, the decoded size, whenever known (TileSizes.swift).
    @discardableResult
    public func putTile(_ key: TileKey, data: StoredData, headers: CacheHeaders, contentSize: Int? = nil) throws
        -> TileID
    {
        let id = try Int64.fetchOne(db.cachedStatement(sql: """
            INSERT INTO tiles (expires, modified, etag, data, compressed, accessed,
              must_revalidate, url_template, pixel_ratio, z, x, y)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (url_template, pixel_ratio, z, x, y) DO UPDATE SET
              expires = excluded.expires, modified = excluded.modified, etag = excluded.etag,
              data = excluded.data, compressed = excluded.compressed, accessed = excluded.accessed,
              must_revalidate = excluded.must_revalidate
            RETURNING id
            """), arguments: [
                headers.expires, headers.modified, headers.etag, data.bytes, data.compressed, now,
                headers.mustRevalidate, key.urlTemplate, key.pixelRatio, key.z, key.x, key.y,
            ])
        guard let id else { throw StoreError.sqlite("tile upsert returned no id") }
        try recordSize(of: TileID(rawValue: id), data, contentSize: contentSize)
        return TileID(rawValue: id)
    }

    /// A 304 answer: the stored content stays; the headers and `accessed` are renewed.
    public func revalidateResource(url: String, headers: CacheHeaders) throws {
        try db.cachedStatement(sql: """
            UPDATE resources SET expires = ?, modified = COALESCE(?, modified),
              etag = COALESCE(?, etag), must_revalidate = ?, accessed = ? WHERE url = ?
            """).execute(arguments: [
                headers.expires, headers.modified, headers.etag, headers.mustRevalidate, now, url,
            ])
    }

    /// A 304 answer for a tile.
    public func revalidateTile(_ key: TileKey, headers: CacheHeaders) throws {
        try db.cachedStatement(sql: """
            UPDATE tiles SET expires = ?, modified = COALESCE(?, modified),
              etag = COALESCE(?, etag), must_revalidate = ?, accessed = ? WHERE \(TileKey.match)
            """).execute(arguments: [headers.expires, headers.modified, headers.etag, headers.mustRevalidate, now]
                + key.arguments)
    }

    /// True when `region` did not hold the resource yet.
    @discardableResult
    public func link(resource: ResourceID, to region: RegionID) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO region_resources (region_id, resource_id) VALUES (?, ?)")
            .execute(arguments: [region.rawValue, resource.rawValue])
        return db.changesCount > 0
    }

    /// True when `region` did not hold the tile yet.
    @discardableResult
    public func link(tile: TileID, to region: RegionID) throws -> Bool {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO region_tiles (region_id, tile_id) VALUES (?, ?)")
            .execute(arguments: [region.rawValue, tile.rawValue])
        return db.changesCount > 0
    }

    /// Adds an already stored resource (any pack's or the ambient cache's) to `region`; nil if none at `url`.
    public func adoptResource(url: String, into region: RegionID) throws -> Adoption? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, COALESCE(LENGTH(data), 0) FROM resources WHERE url = ?"),
            arguments: [url])
        else { return nil }
        let id = try ResourceID(rawValue: row.decode(atIndex: 0))
        return try Adoption(added: link(resource: id, to: region), storedSize: row.decode(atIndex: 1))
    }

    /// Adds an already stored tile to `region`; nil when it is not stored.
    public func adoptTile(_ key: TileKey, into region: RegionID) throws -> Adoption? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, COALESCE(LENGTH(data), 0) FROM tiles WHERE \(TileKey.match)"),
            arguments: key.arguments)
        else { return nil }
        let id = try TileID(rawValue: row.decode(atIndex: 0))
        return try Adoption(added: link(tile: id, to: region), storedSize: row.decode(atIndex: 1))
    }

    /// The stored bytes of a tile (nil when no row), to tell a changed tile from a same one.
    public func storedData(of key: TileKey) throws -> StoredData? {
        try storedTile(key)?.data
    }

    /// Size of the stored data (0 for "no content"); nil when nothing is stored under `url`.
    public func storedSize(ofResource url: String) throws -> Int? {
        try Int.fetchOne(db.cachedStatement(sql: SizeSQL.resource), arguments: [url])
    }

    /// Drops one resource from one pack (the row stays for other packs or the ambient cache).
    public func unlink(resource: ResourceID, from region: RegionID) throws {
        try db.execute(
            sql: "DELETE FROM region_resources WHERE region_id = ? AND resource_id = ?",
            arguments: [region.rawValue, resource.rawValue])
    }

    /// Drops one tile from one pack.
    public func unlink(tile: TileID, from region: RegionID) throws {
        try db.execute(
            sql: "DELETE FROM region_tiles WHERE region_id = ? AND tile_id = ?",
            arguments: [region.rawValue, tile.rawValue])
    }

    public func resourceID(url: String) throws -> ResourceID? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM resources WHERE url = ?"), arguments: [url])
            .map(ResourceID.init(rawValue:))
    }

    public func tileID(_ key: TileKey) throws -> TileID? {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM tiles WHERE \(TileKey.match)"), arguments: key.arguments
        ).map(TileID.init(rawValue:))
    }

    /// What adopting a stored row did: whether the pack gained it, and the row's stored size.
    public struct Adoption: Equatable {
        public var added: Bool
        public var storedSize: Int
    }

    /// The underlying connection, for PackStore's own multi-statement operations.
    var database: Database { db }
}
