import FoundationEssentials
import SQLiteDB

/// A pack's hold on a row: the mount names a file by both (its inode encodes the pair).
public struct PackMember<ID: Hashable & Sendable>: Hashable, Sendable {
    public var region: RegionID
    public var id: ID
}

/// What a refresh's switch changed, for whoever caches content (the mount's caches, the kernel).
public struct SwitchedContent: Equatable, Sendable {
    public var region: RegionID
    /// Staged rows moved into `tiles` and `resources`.
    public var tiles = 0
    public var resources = 0
    /// Members that left the pack (its plan no longer covers them).
    public var tilesLeft: [TileKey] = []
    public var resourcesLeft: [String] = []
    /// Every pack's hold on a row whose bytes the switch replaced under its id: this pack's and its sharers'.
    public var changedTiles: [PackMember<TileID>] = []
    public var changedResources: [PackMember<ResourceID>] = []
    /// The key of each changed tile and the URL of each changed resource: where the mount shows them.
    public var tileKeys: [TileID: TileKey] = [:]
    public var resourceURLs: [ResourceID: String] = [:]
    /// Each changed row's new version while a mount records them (`SwitchedRows`); the old names the kernel's inode.
    public var tileVersions: [TileID: Int64] = [:]
    public var resourceVersions: [ResourceID: Int64] = [:]

    /// Nothing changed: nothing was staged and no member left.
    public var isEmpty: Bool {
        tiles == 0 && resources == 0 && tilesLeft.isEmpty && resourcesLeft.isEmpty
    }
}

/// The switch (docs/mount.md, "Refresh"): set-based statements over the pack's staged rows (one range of the
/// staging index) reach `tiles`, `resources` and the memberships through unique indexes, so the work is bounded by
/// what was staged. The triggers keep counts, extents and runs; sizes, dropped by the tiles trigger, are rewritten.
enum RefreshSwitch {
    /// The staged rows of the switched refresh: `?1` the pack, `?2` its `since`.
    static let staged = "s.region_id = ?1 AND s.since = ?2"
    static let tileMatch = """
        t.url_template = s.url_template AND t.pixel_ratio = s.pixel_ratio AND t.z = s.z AND t.x = s.x AND t.y = s.y
        """

    /// Holds on tiles whose bytes change, in every pack (CROSS JOIN reads the pack's few staged rows first).
    static let changedTiles = """
        SELECT rt.region_id, t.id, t.url_template, t.pixel_ratio, t.z, t.x, t.y FROM packfs_staged_tiles s
          CROSS JOIN tiles t ON \(tileMatch)
          CROSS JOIN region_tiles rt ON rt.tile_id = t.id
        WHERE \(staged) AND (t.data IS NOT s.data OR t.compressed IS NOT s.compressed)
        """

    static let changedResources = """
        SELECT rr.region_id, r.id, r.kind, r.url FROM packfs_staged_resources s
          CROSS JOIN resources r ON r.url = s.url
          CROSS JOIN region_resources rr ON rr.resource_id = r.id
        WHERE \(staged) AND (r.data IS NOT s.data OR r.compressed IS NOT s.compressed)
        """

    /// Staged tiles into `tiles`: an existing row keeps its id, as the mount's inodes are row ids. (`WHERE` before
    /// `ON CONFLICT` is SQLite's rule for an upsert from a SELECT.)
    static let upsertTiles = """
        INSERT INTO tiles (url_template, pixel_ratio, z, x, y, expires, modified, etag, data, compressed, accessed,
          must_revalidate)
        SELECT url_template, pixel_ratio, z, x, y, expires, modified, etag, data, compressed, accessed, must_revalidate
          FROM packfs_staged_tiles s WHERE \(staged)
        ON CONFLICT (url_template, pixel_ratio, z, x, y) DO UPDATE SET expires = excluded.expires,
          modified = excluded.modified, etag = excluded.etag, data = excluded.data, compressed = excluded.compressed,
          accessed = excluded.accessed, must_revalidate = excluded.must_revalidate
        """

    /// The served sizes the staged tiles carried, for compressed and gzip rows (the update dropped the old ones).
    static let recordSizes = """
        INSERT OR REPLACE INTO packfs_tile_sizes (tile_id, size)
        SELECT t.id, s.size FROM packfs_staged_tiles s CROSS JOIN tiles t ON \(tileMatch)
        WHERE \(staged) AND s.size IS NOT NULL AND s.data IS NOT NULL
          AND (s.compressed = 1 OR substr(s.data, 1, 2) = x'1F8B')
        """

    static let linkTiles = """
        INSERT OR IGNORE INTO region_tiles (region_id, tile_id)
        SELECT s.region_id, t.id FROM packfs_staged_tiles s CROSS JOIN tiles t ON \(tileMatch) WHERE \(staged)
        """

    static let upsertResources = """
        INSERT INTO resources (url, kind, expires, modified, etag, data, compressed, accessed, must_revalidate)
        SELECT url, kind, expires, modified, etag, data, compressed, accessed, must_revalidate
          FROM packfs_staged_resources s WHERE \(staged)
        ON CONFLICT (url) DO UPDATE SET kind = excluded.kind, expires = excluded.expires,
          modified = excluded.modified, etag = excluded.etag, data = excluded.data, compressed = excluded.compressed,
          accessed = excluded.accessed, must_revalidate = excluded.must_revalidate
        """

    static let linkResources = """
        INSERT OR IGNORE INTO region_resources (region_id, resource_id)
        SELECT s.region_id, r.id FROM packfs_staged_resources s CROSS JOIN resources r ON r.url = s.url
        WHERE \(staged)
        """

    /// Every staged row of the pack goes, dead ones of earlier refreshes too.
    static let clearTiles = "DELETE FROM packfs_staged_tiles WHERE region_id = ?"
    static let clearResources = "DELETE FROM packfs_staged_resources WHERE region_id = ?"

    static let dropHash = "DELETE FROM packfs_pack_hashes WHERE region_id = ? AND url_template = ? AND pixel_ratio = ?"
    static let dropHashes = "DELETE FROM packfs_pack_hashes WHERE region_id = ?"
}

extension StoreBatch {
    /// The switch of the refresh of `since` of `region`, the members its plan no longer covers leaving the pack;
    /// call inside the transaction that records the pack's outcome. Returns what changed, for the caches to forget.
    public func switchStaged(
        of region: RegionID, since: Int64, leaving: (tiles: [TileKey], resources: [String]) = ([], [])
    ) throws -> SwitchedContent {
        var switched = SwitchedContent(region: region)
        try unlink(tiles: leaving.tiles, resources: leaving.resources, from: region)
        (switched.tilesLeft, switched.resourcesLeft) = leaving
        if try Staging.exists(db) {
            try Migrations.ensureBookkeeping(db)
            try switchTiles(region, since, &switched)
            try switchResources(region, since, &switched)
            try db.execute(sql: RefreshSwitch.clearTiles, arguments: [region.rawValue])
            try db.execute(sql: RefreshSwitch.clearResources, arguments: [region.rawValue])
        }
        // The recorded hash described the old tiles: the refresh records the new one once this commits, off the writer.
        if !switched.isEmpty, try db.tableExists("packfs_pack_hashes") {
            try db.execute(sql: RefreshSwitch.dropHashes, arguments: [region.rawValue])
        }
        return switched
    }

    private func switchTiles(_ region: RegionID, _ since: Int64, _ switched: inout SwitchedContent) throws {
        let arguments: StatementArguments = [region.rawValue, since]
        var sets = Set<PackHashSet>()
        for row in try Row.fetchAll(db.cachedStatement(sql: RefreshSwitch.changedTiles), arguments: arguments) {
            let holder = RegionID(rawValue: try row.stored(at: 0, "region_tiles.region_id"))
            let id = TileID(rawValue: try row.stored(at: 1, "tiles.id"))
            switched.changedTiles.append(PackMember(region: holder, id: id))
            guard let template: String = row.lenient("url_template"), let ratio: Int = row.lenient("pixel_ratio") else { continue }
            if let z: Int = row.lenient("z"), let x: Int = row.lenient("x"), let y: Int = row.lenient("y") {
                switched.tileKeys[id] = TileKey(urlTemplate: template, pixelRatio: ratio, z: z, x: x, y: y)
            }
            if holder != region { sets.insert(PackHashSet(region: holder, urlTemplate: template, pixelRatio: ratio)) }
        }
        // The packs sharing a changed tile see its new bytes too (as in MapLibre), so their hashes go, not recomputed:
        // reading each such pack would hold this transaction for minutes. A dropped hash reads as "none recorded"
        // until the pack is next whole; a stale one would fail every verify and refuse every patch for its tiles.
        for set in sets { try db.execute(sql: RefreshSwitch.dropHash, arguments: [set.region.rawValue, set.urlTemplate, set.pixelRatio]) }
        try recordSwitchedRows(.tile, region, since, &switched)
        try db.cachedStatement(sql: RefreshSwitch.upsertTiles).execute(arguments: arguments)
        switched.tiles = db.changesCount
        try db.cachedStatement(sql: RefreshSwitch.recordSizes).execute(arguments: arguments)
        try db.cachedStatement(sql: RefreshSwitch.linkTiles).execute(arguments: arguments)
    }

    private func switchResources(_ region: RegionID, _ since: Int64, _ switched: inout SwitchedContent) throws {
        let arguments: StatementArguments = [region.rawValue, since]
        var documents = Set<RegionID>()
        for row in try Row.fetchAll(db.cachedStatement(sql: RefreshSwitch.changedResources), arguments: arguments) {
            let holder = RegionID(rawValue: try row.stored(at: 0, "region_resources.region_id"))
            let id = ResourceID(rawValue: try row.stored(at: 1, "resources.id"))
            switched.changedResources.append(PackMember(region: holder, id: id))
            if let url: String = row.lenient("url") { switched.resourceURLs[id] = url }
            // A shared style or TileJSON says which tiles another pack's sources hold and how: its hashes go too.
            let kind = (row.lenient("kind") as Int?).flatMap(ResourceKind.init(rawValue:))
            if holder != region, kind == .style || kind == .source { documents.insert(holder) }
        }
        for holder in documents { try db.execute(sql: RefreshSwitch.dropHashes, arguments: [holder.rawValue]) }
        try recordSwitchedRows(.resource, region, since, &switched)
        try db.cachedStatement(sql: RefreshSwitch.upsertResources).execute(arguments: arguments)
        switched.resources = db.changesCount
        try db.cachedStatement(sql: RefreshSwitch.linkResources).execute(arguments: arguments)
    }

    /// Drops tiles and resources from a pack inside a larger transaction; rows no other pack holds become ambient.
    public func unlink(tiles: [TileKey], resources: [String], from region: RegionID) throws {
        for key in tiles { if let id = try tileID(key) { try unlink(tile: id, from: region) } }
        for url in resources { if let id = try resourceID(url: url) { try unlink(resource: id, from: region) } }
    }
}

/// One recorded hash of one pack (`packfs_pack_hashes`' key).
private struct PackHashSet: Hashable {
    var region: RegionID
    var urlTemplate: String
    var pixelRatio: Int
}
