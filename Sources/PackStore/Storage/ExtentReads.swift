import SQLiteDB

/// The tree's questions asked through the pack's own extents (`Extents`) once complete: each seeks the
/// pack's columns, then reads the `tiles` index only between their lowest and highest rows, so the cost
/// is the pack's whatever its neighbours hold. Until then (a file an app filled) `TreeSQL` answers.
extension OfflineDatabase {
    enum ExtentSQL {
        static let ready = StatementKey("SELECT 1 FROM packfs_pack_counts WHERE region_id = ? AND counting = 0")
        /// A tile with content in the column, within the extent `e`, that pack ?1 holds.
        static let content = """
            t.url_template = e.url_template AND t.pixel_ratio = e.pixel_ratio AND t.z = e.z AND t.x = e.x
              AND t.y BETWEEN e.min_y AND e.max_y AND t.data IS NOT NULL
              AND EXISTS (SELECT 1 FROM region_tiles rt WHERE rt.region_id = ?1 AND rt.tile_id = t.id)
            """
        static let extent = StatementKey("""
            SELECT min_y, max_y FROM packfs_pack_extents
              WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? AND z = ? AND x = ?
            """)
        /// The pack's next zoom above ?4 with a tile with content (usually one column probed per zoom).
        static let nextZoom = StatementKey("""
            SELECT e.z FROM packfs_pack_extents e
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND e.z > ?4
                AND EXISTS (SELECT 1 FROM tiles t WHERE \(content))
              ORDER BY e.z LIMIT 1
            """)
        static let zoomProbe = StatementKey("""
            SELECT 1 FROM packfs_pack_extents e CROSS JOIN tiles t
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND e.z = ?4 AND \(content)
              LIMIT 1
            """)
        /// Some tile with content of the set: the first the pack's extents lead to.
        static let sample = StatementKey("""
            SELECT t.id FROM packfs_pack_extents e CROSS JOIN tiles t
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND \(content)
              LIMIT 1
            """)
        static let columns = StatementKey("""
            SELECT e.x FROM packfs_pack_extents e
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND e.z = ?4 AND e.x > ?5
                AND EXISTS (SELECT 1 FROM tiles t WHERE \(content))
              ORDER BY e.x LIMIT ?6
            """)
        static let nextTemplate = StatementKey("""
            SELECT url_template FROM packfs_pack_extents WHERE region_id = ? AND url_template > ?
              ORDER BY url_template LIMIT 1
            """)
        static let nextRatio = StatementKey("""
            SELECT pixel_ratio FROM packfs_pack_extents WHERE region_id = ? AND url_template = ? AND pixel_ratio > ?
              ORDER BY pixel_ratio LIMIT 1
            """)
        static let setProbe = StatementKey("""
            SELECT 1 FROM packfs_pack_extents e CROSS JOIN tiles t
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND \(content) LIMIT 1
            """)
    }

    /// What the pack's extents say of a set's column: nil when not complete (ask `tiles` alone); else
    /// the rows the pack may hold there, none when it holds no tile in the column.
    static func columnExtent(_ set: TileColumnSet, z: Int, x: Int, _ db: Database) throws -> ClosedRange<Int64>?? {
        guard try extentsReady(set.region, db) else { return nil }
        let arguments: StatementArguments = [set.region.rawValue, set.urlTemplate, set.pixelRatio, z, x]
        let range = try db.cachedStatement(ExtentSQL.extent).firstRow(arguments: arguments) { row in (row.int64(0), row.int64(1)) }
        guard let (low, high) = range else { return .some(nil) }
        return low <= high ? .some(low...high) : .some(nil)
    }

    /// The set's zooms with content from its extents; nil when they are not complete.
    func extentZooms(_ set: TileColumnSet) throws -> [Int]? {
        try readWithoutTransaction { db in
            guard try Self.extentsReady(set.region, db) else { return nil }
            let statement = try db.cachedStatement(ExtentSQL.nextZoom)
            var zooms: [Int] = []
            while let z = try statement.firstRow(arguments: Self.setArguments(set) + [zooms.last ?? -1], {
                Int(exactly: $0.int64(0))
            }), let z, z > zooms.last ?? -1 {
                zooms.append(z)
            }
            return zooms
        }
    }

    /// Up to `limit` of the set's x values with content at z after `after`, from its extents; nil if incomplete.
    func extentColumns(_ set: TileColumnSet, z: Int, after: Int, limit: Int) throws -> [Int]? {
        try readWithoutTransaction { db in
            guard try Self.extentsReady(set.region, db) else { return nil }
            var columns: [Int] = []
            let arguments = Self.setArguments(set) + [z, after, max(limit, 0)]
            try db.cachedStatement(ExtentSQL.columns).forEachRow(arguments: arguments) { row in
                if let x = Int(exactly: row.int64(0)) { columns.append(x) }
            }
            return columns
        }
    }

    /// Whether the pack's extents are complete (its figures are counted, and they were kept).
    static func extentsReady(_ region: RegionID, _ db: Database) throws -> Bool {
        guard try db.tableExists(Extents.table) else { return false }
        return try db.holds(ExtentSQL.ready, [region.rawValue])
    }

    static func setArguments(_ set: TileColumnSet) -> StatementArguments {
        [set.region.rawValue, set.urlTemplate, set.pixelRatio]
    }

    /// The pack's tile sets from its extents, each with a tile with content (`packTileSets`).
    static func extentTileSets(of region: RegionID, _ db: Database) throws -> [TileColumnSet] {
        let nextTemplate = try db.cachedStatement(ExtentSQL.nextTemplate)
        let nextRatio = try db.cachedStatement(ExtentSQL.nextRatio)
        let probe = try db.cachedStatement(ExtentSQL.setProbe)
        var sets: [TileColumnSet] = []
        var template = ""
        while let next = try String.fetchOne(nextTemplate, arguments: [region.rawValue, template]), next > template {
            template = next
            var ratio = Int64.min
            while let value = try Int64.fetchOne(nextRatio, arguments: [region.rawValue, template, ratio]), value > ratio {
                ratio = value
                guard let pixelRatio = Int(exactly: value),
                    try Int.fetchOne(probe, arguments: [region.rawValue, template, value]) != nil
                else { continue }
                sets.append(TileColumnSet(region: region, urlTemplate: template, pixelRatio: pixelRatio))
            }
        }
        return sets
    }
}
