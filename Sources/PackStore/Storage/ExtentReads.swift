import SQLiteDB

/// The tree's questions asked through the pack's own extents (`Extents`) once they are complete:
/// each seeks the pack's columns, then reads the `tiles` index only between the pack's lowest and
/// highest row in each, so that its cost is the pack's whatever its neighbours hold. Without
/// complete extents (a database an app filled, still being counted) the questions go through
/// the `tiles` index alone (`TreeSQL`), as before.
extension OfflineDatabase {
    enum ExtentSQL {
        static let tableExists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(Extents.table)'"
        static let ready = "SELECT 1 FROM packfs_pack_counts WHERE region_id = ? AND counting = 0"
        /// A tile with content in the column, within the extent `e`, that pack ?1 holds.
        static let content = """
            t.url_template = e.url_template AND t.pixel_ratio = e.pixel_ratio AND t.z = e.z AND t.x = e.x
              AND t.y BETWEEN e.min_y AND e.max_y AND t.data IS NOT NULL
              AND EXISTS (SELECT 1 FROM region_tiles rt WHERE rt.region_id = ?1 AND rt.tile_id = t.id)
            """
        static let extent = """
            SELECT min_y, max_y FROM packfs_pack_extents
              WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? AND z = ? AND x = ?
            """
        /// The pack's next zoom above ?4 with a tile with content (one column probed per zoom,
        /// usually the first).
        static let nextZoom = """
            SELECT e.z FROM packfs_pack_extents e
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND e.z > ?4
                AND EXISTS (SELECT 1 FROM tiles t WHERE \(content))
              ORDER BY e.z LIMIT 1
            """
        static let zoomProbe = """
            SELECT 1 FROM packfs_pack_extents e CROSS JOIN tiles t
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND e.z = ?4 AND \(content)
              LIMIT 1
            """
        /// Some tile with content of the set: the first the pack's extents lead to.
        static let sample = """
            SELECT t.id FROM packfs_pack_extents e CROSS JOIN tiles t
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND \(content)
              LIMIT 1
            """
        static let columns = """
            SELECT e.x FROM packfs_pack_extents e
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND e.z = ?4 AND e.x > ?5
                AND EXISTS (SELECT 1 FROM tiles t WHERE \(content))
              ORDER BY e.x LIMIT ?6
            """
        static let nextTemplate = """
            SELECT url_template FROM packfs_pack_extents WHERE region_id = ? AND url_template > ?
              ORDER BY url_template LIMIT 1
            """
        static let nextRatio = """
            SELECT pixel_ratio FROM packfs_pack_extents WHERE region_id = ? AND url_template = ? AND pixel_ratio > ?
              ORDER BY pixel_ratio LIMIT 1
            """
        static let setProbe = """
            SELECT 1 FROM packfs_pack_extents e CROSS JOIN tiles t
              WHERE e.region_id = ?1 AND e.url_template = ?2 AND e.pixel_ratio = ?3 AND \(content) LIMIT 1
            """
    }

    enum ExtentRead {
        static let tableExists = ReadQuery(ExtentSQL.tableExists)
        static let ready = ReadQuery(ExtentSQL.ready)
        static let extent = ReadQuery(ExtentSQL.extent)
        static let nextZoom = ReadQuery(ExtentSQL.nextZoom)
        static let zoomProbe = ReadQuery(ExtentSQL.zoomProbe)
        static let columns = ReadQuery(ExtentSQL.columns)
    }

    /// What a raw connection knows of a set's column: nil when the pack's extents are not
    /// complete (ask the `tiles` index alone); else the rows the pack may hold there, none when
    /// it holds no tile in the column.
    func columnExtent(_ set: TileColumnSet, z: Int, x: Int, _ connection: ReadConnection) throws -> ClosedRange<Int64>?? {
        guard try extentsReady(set.region, connection) else { return nil }
        let arguments: [ReadArgument] = [
            .int(set.region.rawValue), .text(set.urlTemplate), .int(Int64(set.pixelRatio)), .int(Int64(z)), .int(Int64(x)),
        ]
        let range = try connection.first(ExtentRead.extent, arguments) { row in (row.int64(0), row.int64(1)) }
        guard let (low, high) = range else { return .some(nil) }
        return low <= high ? .some(low...high) : .some(nil)
    }

    /// The set's zooms with content from its extents; nil when they are not complete.
    func extentZooms(_ set: TileColumnSet) throws -> [Int]? {
        try readers.withConnection { connection in
            guard try extentsReady(set.region, connection) else { return nil }
            var zooms: [Int] = []
            while let z = try connection.first(ExtentRead.nextZoom, Self.setArguments(set) + [.int(Int64(zooms.last ?? -1))], {
                Int(exactly: $0.int64(0))
            }), let z, z > zooms.last ?? -1 {
                zooms.append(z)
            }
            return zooms
        }
    }

    /// Up to `limit` of the set's x values with content at z after `after`, from its extents;
    /// nil when they are not complete.
    func extentColumns(_ set: TileColumnSet, z: Int, after: Int, limit: Int) throws -> [Int]? {
        try readers.withConnection { connection in
            guard try extentsReady(set.region, connection) else { return nil }
            var columns: [Int] = []
            let arguments = Self.setArguments(set) + [.int(Int64(z)), .int(Int64(after)), .int(Int64(max(limit, 0)))]
            try connection.each(ExtentRead.columns, arguments) { row in
                if let x = Int(exactly: row.int64(0)) { columns.append(x) }
                return true
            }
            return columns
        }
    }

    /// Whether the pack's extents are complete (its figures are counted, and they were kept).
    /// Asked once per request in a `ReadSession` (its snapshot cannot change the answer).
    func extentsReady(_ region: RegionID, _ connection: ReadConnection) throws -> Bool {
        let session = ReadSession.current(for: readers)
        if let known = session?.extentsReady[region] { return known }
        var ready = try connection.first(ExtentRead.tableExists, []) { _ in true } ?? false
        if ready { ready = try connection.first(ExtentRead.ready, [.int(region.rawValue)]) { _ in true } ?? false }
        session?.extentsReady[region] = ready
        return ready
    }

    /// `extentsReady` for a read through SQLiteDB.
    static func extentsReady(_ region: RegionID, _ db: Database) throws -> Bool {
        guard try db.tableExists(Extents.table) else { return false }
        return try Bool.fetchOne(db.cachedStatement(sql: ExtentSQL.ready), arguments: [region.rawValue]) != nil
    }

    static func setArguments(_ set: TileColumnSet) -> [ReadArgument] {
        [.int(set.region.rawValue), .text(set.urlTemplate), .int(Int64(set.pixelRatio))]
    }

    /// The pack's tile sets from its extents, each with a tile with content (`packTileSets`).
    static func extentTileSets(of region: RegionID, _ db: Database) throws -> [TileColumnSet] {
        let nextTemplate = try db.cachedStatement(sql: ExtentSQL.nextTemplate)
        let nextRatio = try db.cachedStatement(sql: ExtentSQL.nextRatio)
        let probe = try db.cachedStatement(sql: ExtentSQL.setProbe)
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
