import Basics
import FoundationEssentials
import SQLiteDB

/// What a refresh fetched that a reader must not see yet (`packfs_staged_tiles`, `packfs_staged_resources`), moved
/// into MapLibre's tables by the switch (RefreshSwitch.swift) in one transaction, so nobody sees a mix
/// (docs/mount.md, "Refresh"). A row is what the live row will be after the switch, one per pack and key; a stored
/// row the pack does not hold yet is copied, not referenced, so evicting the ambient row meanwhile loses nothing.
/// Only the pending refresh's rows (`since`) are switched in: others are dead until the next switch or removal.
/// `accessed` is stamped as for any row the refresh writes, so a switched row counts as done for a resumed refresh.
enum Staging {
    static let tilesTable = "packfs_staged_tiles"
    static let resourcesTable = "packfs_staged_resources"
    /// Staged rows deleted per transaction when a pack is removed (they carry blobs: a fifth of `Removals.batchRows`).
    static let removalRows = 1_000

    /// Made with `Schema.bookkeeping`; the key leads with the pack, so switch, removal and cascade read one range.
    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS packfs_staged_tiles (
          region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
          since INTEGER NOT NULL,
          \(Schema.tileKeyColumns),
          \(Schema.contentColumns),
          size INTEGER,
          UNIQUE (region_id, url_template, pixel_ratio, z, x, y)
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS packfs_staged_resources (
          region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
          since INTEGER NOT NULL,
          url TEXT NOT NULL,
          kind INTEGER NOT NULL,
          \(Schema.contentColumns),
          UNIQUE (region_id, url)
        )
        """,
    ]

    static let stageTile = """
        INSERT OR REPLACE INTO packfs_staged_tiles (region_id, since, url_template, pixel_ratio, z, x, y, expires,
          modified, etag, data, compressed, accessed, must_revalidate, size)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A copy of the stored tile, when the pack does not hold it.
    static let stageTileCopy = """
        INSERT OR REPLACE INTO packfs_staged_tiles (region_id, since, url_template, pixel_ratio, z, x, y, expires,
          modified, etag, data, compressed, accessed, must_revalidate, size)
        SELECT ?1, ?2, t.url_template, t.pixel_ratio, t.z, t.x, t.y, t.expires, t.modified, t.etag, t.data,
          t.compressed, ?3, t.must_revalidate, s.size
        FROM tiles t LEFT JOIN packfs_tile_sizes s ON s.tile_id = t.id
        WHERE t.url_template = ?4 AND t.pixel_ratio = ?5 AND t.z = ?6 AND t.x = ?7 AND t.y = ?8
          AND NOT EXISTS (SELECT 1 FROM region_tiles WHERE region_id = ?1 AND tile_id = t.id)
        """

    static let stageResource = """
        INSERT OR REPLACE INTO packfs_staged_resources (region_id, since, url, kind, expires, modified, etag, data,
          compressed, accessed, must_revalidate)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static let stageResourceCopy = """
        INSERT OR REPLACE INTO packfs_staged_resources (region_id, since, url, kind, expires, modified, etag, data,
          compressed, accessed, must_revalidate)
        SELECT ?1, ?2, r.url, r.kind, r.expires, r.modified, r.etag, r.data, r.compressed, ?3, r.must_revalidate
        FROM resources r WHERE r.url = ?4
          AND NOT EXISTS (SELECT 1 FROM region_resources WHERE region_id = ?1 AND resource_id = r.id)
        """

    static let stagedTile = """
        SELECT 1 FROM packfs_staged_tiles WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? AND z = ?
          AND x = ? AND y = ? AND since = ?
        """

    static let stagedResource = """
        SELECT data, compressed FROM packfs_staged_resources WHERE region_id = ? AND url = ? AND since = ?
        """

    static let stagedResourceExists = """
        SELECT 1 FROM packfs_staged_resources WHERE region_id = ? AND url = ? AND since = ?
        """

    static let anyStaged = """
        SELECT EXISTS (SELECT 1 FROM packfs_staged_tiles WHERE region_id = ?1 AND since = ?2)
          OR EXISTS (SELECT 1 FROM packfs_staged_resources WHERE region_id = ?1 AND since = ?2)
        """

    /// Whether the staging tables exist (a file no refresh of PackFS ever staged into has none).
    static func exists(_ db: Database) throws -> Bool {
        try db.tableExists(tilesTable) && db.tableExists(resourcesTable)
    }

    /// A redefinition while a refresh is pending restarts it (a new `since`, as a new `touch` does): its staged rows
    /// answered the old plan and would bring back tiles the new one no longer covers. They stay dead, not deleted: this
    /// runs on a FUSE thread, so no delete grows with what was staged. Rows revalidated in place are asked again.
    static func restartPendingRefresh(of region: RegionID, _ db: Database) throws {
        guard try db.tableExists("packfs_refresh") else { return }
        // Later than the old one even within its second: none of its rows may stay alive.
        try db.execute(
            sql: "UPDATE packfs_refresh SET since = MAX(since + 1, ?) WHERE region_id = ?",
            arguments: [unixNow() + 1, region.rawValue])
    }

    /// One bounded step of a removal: true when it deleted staged rows of `region`.
    static func removalStep(_ region: RegionID, _ db: Database) throws -> Bool {
        for table in [tilesTable, resourcesTable] where try db.tableExists(table) {
            try db.execute(
                sql: "DELETE FROM \(table) WHERE rowid IN (SELECT rowid FROM \(table) WHERE region_id = ? LIMIT ?)",
                arguments: [region.rawValue, removalRows])
            if db.changesCount > 0 { return true }
        }
        return false
    }
}

extension StoreBatch {
    /// Stages a tile a refresh of `region` fetched with new content (or found missing); `contentSize` as for `putTile`.
    public func stageTile(
        _ key: TileKey, data: StoredData, headers: CacheHeaders, contentSize: Int?, for region: RegionID, since: Int64
    ) throws {
        try requireStaging()
        let size = data.servedSizeDiffers ? contentSize : nil
        try db.cachedStatement(sql: Staging.stageTile).execute(arguments: [
            region.rawValue, since, key.urlTemplate, key.pixelRatio, key.z, key.x, key.y, headers.expires,
            headers.modified, headers.etag, data.bytes, data.compressed, now, headers.mustRevalidate, size,
        ])
    }

    /// The refresh of `region` found the stored tile current: when the pack does not hold it (its plan changed), a
    /// copy is staged to join the pack at the switch. True when staged.
    @discardableResult
    public func stageMembership(of key: TileKey, for region: RegionID, since: Int64) throws -> Bool {
        try requireStaging()
        try db.cachedStatement(sql: Staging.stageTileCopy).execute(arguments: [
            region.rawValue, since, now, key.urlTemplate, key.pixelRatio, key.z, key.x, key.y,
        ])
        return db.changesCount > 0
    }

    /// Stages a resource a refresh of `region` fetched with new content (or found missing).
    public func stageResource(
        url: String, kind: ResourceKind, data: StoredData, headers: CacheHeaders, for region: RegionID, since: Int64
    ) throws {
        try requireStaging()
        try db.cachedStatement(sql: Staging.stageResource).execute(arguments: [
            region.rawValue, since, url, kind.rawValue, headers.expires, headers.modified, headers.etag, data.bytes,
            data.compressed, now, headers.mustRevalidate,
        ])
    }

    /// As `stageMembership(of:)` for a resource.
    @discardableResult
    public func stageMembership(ofResource url: String, for region: RegionID, since: Int64) throws -> Bool {
        try requireStaging()
        try db.cachedStatement(sql: Staging.stageResourceCopy).execute(arguments: [region.rawValue, since, now, url])
        return db.changesCount > 0
    }

    /// The stored bytes of a resource (nil when no row), to tell a changed one from a same one.
    public func storedData(ofResource url: String) throws -> StoredData? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT data, compressed FROM resources WHERE url = ?"), arguments: [url])
        else { return nil }
        return try OfflineDatabase.storedData(row, of: "resources")
    }

    /// The staging tables (and the sizes table a copy reads) exist from a refresh's first write.
    private func requireStaging() throws {
        if try !Staging.exists(db) || !db.tableExists(StoreBatch.sizesTable) { try Migrations.ensureBookkeeping(db) }
    }
}

/// What a resumed refresh asks before requesting: staged answers count as answered.
extension OfflineDatabase {
    /// Whether the refresh of `since` staged anything for `region` (a run it was cut from).
    public func hasStaged(_ region: RegionID, since: Int64) throws -> Bool {
        try read { db in
            guard try Staging.exists(db) else { return false }
            return try Bool.fetchOne(db.cachedStatement(sql: Staging.anyStaged), arguments: [region.rawValue, since]) ?? false
        }
    }

    /// The keys of `keys` the refresh of `since` staged for `region`.
    public func stagedTiles(_ keys: [TileKey], of region: RegionID, since: Int64) throws -> Set<TileKey> {
        try read { db in
            guard try Staging.exists(db) else { return [] }
            let statement = try db.cachedStatement(sql: Staging.stagedTile)
            return try Set(keys.filter { key in
                try Bool.fetchOne(statement, arguments: [
                    region.rawValue, key.urlTemplate, key.pixelRatio, key.z, key.x, key.y, since,
                ]) != nil
            })
        }
    }

    /// The URLs of `urls` the refresh of `since` staged for `region`.
    public func stagedResources(_ urls: [String], of region: RegionID, since: Int64) throws -> Set<String> {
        try read { db in
            guard try Staging.exists(db) else { return [] }
            let statement = try db.cachedStatement(sql: Staging.stagedResourceExists)
            return try Set(urls.filter { try Bool.fetchOne(statement, arguments: [region.rawValue, $0, since]) != nil })
        }
    }

    /// The content the refresh of `since` staged for `url` (a style or TileJSON to plan from); nil when none.
    public func stagedResource(url: String, of region: RegionID, since: Int64) throws -> StoredData? {
        try read { db in
            guard try Staging.exists(db),
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: Staging.stagedResource), arguments: [region.rawValue, url, since])
            else { return nil }
            return try Self.storedData(row, of: Staging.resourcesTable)
        }
    }
}
