import SQLiteDB

/// One tile source of one pack as the mount lists it: the pack, the first `tiles` template, the key's pixel ratio.
public struct TileColumnSet: Hashable, Sendable {
    public var region: RegionID
    public var urlTemplate: String
    public var pixelRatio: Int
    public init(region: RegionID, urlTemplate: String, pixelRatio: Int) {
        self.region = region
        self.urlTemplate = urlTemplate
        self.pixelRatio = pixelRatio
    }
}

/// The questions the mount asks while the kernel walks the tree, one directory level at a time, each
/// through the `tiles` unique index and a membership index; no query scans a table. Distinct z and x are
/// found by skip scans, one index seek per distinct value. Tiles without content (NULL data) are not in the tree.
extension OfflineDatabase {
    enum TreeSQL {
        static let member = "EXISTS (SELECT 1 FROM region_tiles rt WHERE rt.region_id = ? AND rt.tile_id = t.id)"
        // `typeof(...) = 'integer'`: a row with z 'one' or 1.5 (an app's file may hold them) would
        // answer `z > ?` forever as the same integer, and the skip scan would never end.
        static let nextZoom = StatementKey("""
            SELECT z FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z > ? AND typeof(z) = 'integer'
              AND data IS NOT NULL AND \(member) ORDER BY z LIMIT 1
            """)
        static let nextColumn = StatementKey("""
            SELECT x FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x > ?
              AND typeof(x) = 'integer' AND data IS NOT NULL AND \(member) ORDER BY x LIMIT 1
            """)
        /// Whether zoom z (or column z/x) has a tile with content in the pack: one index seek, then
        /// entries until a member turns up. `= ?` binds an integer, which no text or real row equals.
        static let zoomProbe = StatementKey("""
            SELECT 1 FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z = ?
              AND data IS NOT NULL AND \(member) LIMIT 1
            """)
        static let columnProbe = StatementKey("""
            SELECT 1 FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ? AND y BETWEEN ? AND ?
              AND data IS NOT NULL AND \(member) LIMIT 1
            """)
        /// A page of a column's rows, ascending (`[0]`) or descending (`[1]`).
        static let rows = [false, true].map { descending in
            StatementKey("""
                SELECT y, id FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ?
                  AND y \(descending ? "<" : ">") ? AND y BETWEEN ? AND ? AND typeof(y) = 'integer'
                  AND data IS NOT NULL AND \(member)
                  ORDER BY y \(descending ? "DESC" : "ASC") LIMIT ?
                """)
        }
        /// `rows` with each tile's served size where known without decoding: the recorded size
        /// (TileSizes.swift), else the length of uncompressed non-gzip content, else NULL. A recorded
        /// size implies content, so SQLite's deferred seek lists such a tile without reading its row.
        /// Indexed by order, then without and with PackFS's sizes table.
        static let sizedRows = [false, true].map { descending in
            [false, true].map { sizesTable in
                let recorded = sizesTable ? "s.size" : "NULL"
                return StatementKey("""
                    SELECT t.y, t.id, CASE WHEN \(recorded) IS NOT NULL THEN \(recorded)
                        WHEN t.compressed = 0 AND substr(t.data, 1, 2) != x'1F8B' THEN length(t.data) END
                      FROM tiles t \(sizesTable ? "LEFT JOIN packfs_tile_sizes s ON s.tile_id = t.id" : "")
                      WHERE t.url_template = ? AND t.pixel_ratio = ? AND t.z = ? AND t.x = ?
                        AND t.y \(descending ? "<" : ">") ? AND t.y BETWEEN ? AND ? AND typeof(t.y) = 'integer'
                        AND (\(recorded) IS NOT NULL OR t.data IS NOT NULL) AND \(member)
                      ORDER BY t.y \(descending ? "DESC" : "ASC") LIMIT ?
                    """)
            }
        }
        static let recordedSize = StatementKey("SELECT size FROM packfs_tile_sizes WHERE tile_id = ?")
        static let tileByKey = StatementKey("""
            SELECT id FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ? AND y = ?
              AND data IS NOT NULL AND \(member)
            """)
        static let tileDataByKey = StatementKey("""
            SELECT id, data, compressed FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ?
              AND y = ? AND data IS NOT NULL AND \(member)
            """)
        static let tileServedByID = StatementKey(
            "SELECT id, data, compressed FROM tiles t WHERE id = ? AND data IS NOT NULL AND \(member)")
        static let tileByID = StatementKey("SELECT \(tileColumns) FROM tiles t WHERE id = ? AND \(member)")
        static let sampleTile = StatementKey("""
            SELECT id FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND data IS NOT NULL
              AND \(member) LIMIT 1
            """)
        static let resourceMember =
            "EXISTS (SELECT 1 FROM region_resources rr WHERE rr.region_id = ? AND rr.resource_id = r.id)"
        static let resourceByURL = StatementKey("SELECT id FROM resources r WHERE url = ? AND \(resourceMember)")
        static let resourceDataByID = StatementKey(
            "SELECT data, compressed FROM resources r WHERE id = ? AND \(resourceMember)")
        static let holdsTile = StatementKey("SELECT 1 FROM region_tiles WHERE region_id = ? AND tile_id = ?")
        static let holdsResource = StatementKey(
            "SELECT 1 FROM region_resources WHERE region_id = ? AND resource_id = ?")
        static let resourcesOfKind = StatementKey("""
            SELECT r.id, r.url FROM region_resources rr JOIN resources r ON r.id = rr.resource_id
              WHERE rr.region_id = ? AND r.kind = ? ORDER BY rr.resource_id
            """)
    }

    /// The zoom levels with content, ascending.
    public func tileZooms(_ set: TileColumnSet) throws -> [Int] {
        if let zooms = try extentZooms(set) { return zooms }
        return try read { db in
            let statement = try db.cachedStatement(TreeSQL.nextZoom)
            var zooms: [Int] = []
            // Each answer is above the last: the loop ends however the rows compare.
            while let z = try Int.fetchOne(
                statement, arguments: [set.urlTemplate, set.pixelRatio, zooms.last ?? -1, set.region.rawValue]),
                z > zooms.last ?? -1
            {
                zooms.append(z)
            }
            return zooms
        }
    }

    /// Up to `limit` x values with content at zoom `z`, ascending, each above `after`.
    public func tileColumns(_ set: TileColumnSet, z: Int, after: Int, limit: Int) throws -> [Int] {
        if let columns = try extentColumns(set, z: z, after: after, limit: limit) { return columns }
        return try read { db in
            let statement = try db.cachedStatement(TreeSQL.nextColumn)
            var columns: [Int] = []
            while columns.count < limit, let x = try Int.fetchOne(
                statement, arguments: [set.urlTemplate, set.pixelRatio, z, columns.last ?? after, set.region.rawValue]),
                x > columns.last ?? after
            {
                columns.append(x)
            }
            return columns
        }
    }

    /// A tile row, if `region` still holds it.
    public func packTile(_ id: TileID, in region: RegionID) throws -> StoredTile? {
        try read { db in
            try Row.fetchOne(db.cachedStatement(TreeSQL.tileByID), arguments: [id.rawValue, region.rawValue])
                .map(Self.tile(from:))
        }
    }

    /// Some tile with content of the set (to tell a raster source's image format), through the
    /// pack's extents once complete (docs/benchmarks.md, "A pack among many").
    public func sampleTile(_ set: TileColumnSet) throws -> StoredTile? {
        let id = try read { db in
            if try Self.extentsReady(set.region, db) {
                return try Int64.fetchOne(
                    db.cachedStatement(ExtentSQL.sample), arguments: [set.region.rawValue, set.urlTemplate, set.pixelRatio])
            }
            return try Int64.fetchOne(
                db.cachedStatement(TreeSQL.sampleTile),
                arguments: [set.urlTemplate, set.pixelRatio, set.region.rawValue])
        }
        return try id.flatMap { try packTile(TileID(rawValue: $0), in: set.region) }
    }
}
