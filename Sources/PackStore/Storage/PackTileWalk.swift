import GRDB

/// Whole-pack questions for export and for packs without a stored style: which tile sets a pack
/// holds, and every tile of one set in z, x, y order. Both go through the `tiles` unique index
/// (url_template, pixel_ratio, z, x, y) and the membership index, a page at a time, so a pack of a
/// million tiles streams in constant memory and never holds a read transaction for long.
extension OfflineDatabase {
    /// Tiles per page of `forEachPackTile`.
    static let walkPage = 2_000

    /// The pack's tile sets (template and key pixel ratio), in template order. A skip scan finds
    /// each distinct set of the table in one seek, then asks whether the pack holds any of it.
    public func packTileSets(of region: RegionID) throws -> [TileColumnSet] {
        try read { db in
            let next = try db.cachedStatement(sql: """
                SELECT url_template, pixel_ratio FROM tiles
                  WHERE typeof(url_template) = 'text' AND typeof(pixel_ratio) = 'integer'
                    AND (url_template > ? OR (url_template = ? AND pixel_ratio > ?))
                  ORDER BY url_template, pixel_ratio LIMIT 1
                """)
            let held = try db.cachedStatement(sql: """
                SELECT 1 FROM tiles t WHERE url_template = ? AND pixel_ratio = ? AND data IS NOT NULL
                  AND \(TreeSQL.member) LIMIT 1
                """)
            var sets: [TileColumnSet] = []
            var last = ("", Int.min)
            while let row = try Row.fetchOne(next, arguments: [last.0, last.0, last.1]) {
                let template: String = try row.stored(at: 0, "tiles.url_template")
                let ratio: Int = try row.stored(at: 1, "tiles.pixel_ratio")
                last = (template, ratio)
                if try Int.fetchOne(held, arguments: [template, ratio, region.rawValue]) != nil {
                    sets.append(TileColumnSet(region: region, urlTemplate: template, pixelRatio: ratio))
                }
            }
            return sets
        }
    }

    /// Calls `body` with every tile with content of `set` in its pack, by z, then x, then y as
    /// stored (a TMS source's rows are the server's: flip them for XYZ). Rows whose coordinates
    /// are not integers name no tile and are skipped, as the mount skips them.
    public func forEachPackTile(
        _ set: TileColumnSet, _ body: (_ z: Int, _ x: Int, _ storedY: Int, _ data: StoredData) throws -> Void
    ) throws {
        var after = (z: Int.min, x: Int.min, y: Int.min)
        while true {
            let page = try tilePage(set, after: after)
            for tile in page { try body(tile.z, tile.x, tile.y, tile.data) }
            guard page.count == Self.walkPage, let last = page.last else { return }
            after = (last.z, last.x, last.y)
        }
    }

    private func tilePage(_ set: TileColumnSet, after: (z: Int, x: Int, y: Int)) throws
        -> [(z: Int, x: Int, y: Int, data: StoredData)]
    {
        try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT z, x, y, data, compressed FROM tiles t
                      WHERE url_template = ? AND pixel_ratio = ? AND (z, x, y) > (?, ?, ?)
                        AND typeof(z) = 'integer' AND typeof(x) = 'integer' AND typeof(y) = 'integer'
                        AND data IS NOT NULL AND \(TreeSQL.member)
                      ORDER BY z, x, y LIMIT ?
                    """),
                arguments: [set.urlTemplate, set.pixelRatio, after.z, after.x, after.y, set.region.rawValue, Self.walkPage]
            ).map { row in
                (
                    z: try row.stored(at: 0, "tiles.z"), x: try row.stored(at: 1, "tiles.x"),
                    y: try row.stored(at: 2, "tiles.y"),
                    data: try Self.storedData(row, of: "tiles")
                )
            }
        }
    }
}
