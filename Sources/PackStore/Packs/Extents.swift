import SQLiteDB

/// Where each pack's tiles lie (`packfs_pack_extents`): per pack and tile column (template, pixel ratio, z, x), the
/// lowest and highest y it holds, so a question about one pack seeks its own columns instead of walking its
/// neighbours' index entries (docs/internals.md, "Where each pack's tiles lie"). Kept by a trigger on
/// `region_tiles`, whichever program writes. A membership going leaves the extent as it was: wider than the pack
/// at worst (a few more index entries to read), never narrower. Complete exactly when the pack's `Counting` figures
/// are, and read only then.
enum Extents {
    static let table = "packfs_pack_extents"

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_extents (
          \(Runs.columnRows),
          PRIMARY KEY (region_id, url_template, pixel_ratio, z, x)
        ) WITHOUT ROWID
        """,
        // Rows with coordinates that are not integers name no file (TreeQueries): not kept.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_extents_region_tiles_insert AFTER INSERT ON region_tiles
        BEGIN
          INSERT INTO packfs_pack_extents (region_id, url_template, pixel_ratio, z, x, min_y, max_y)
            SELECT new.region_id, url_template, pixel_ratio, z, x, y, y FROM tiles k
              WHERE id = new.tile_id AND \(Runs.namesFile("k"))
            ON CONFLICT (region_id, url_template, pixel_ratio, z, x) DO UPDATE
              SET min_y = min(min_y, excluded.min_y), max_y = max(max_y, excluded.max_y)
              WHERE excluded.min_y < min_y OR excluded.max_y > max_y;
        END
        """,
        // A region id can be used again (MapLibre's `regions.id` is a plain rowid): a new pack starts with no extents.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_extents_region_insert AFTER INSERT ON regions
        BEGIN DELETE FROM packfs_pack_extents WHERE region_id = new.id; END
        """,
    ]

    /// Adds measured extents to those the trigger kept since the snapshot (their union).
    static func merge(_ rows: [Runs.Row], into region: RegionID, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO packfs_pack_extents (region_id, url_template, pixel_ratio, z, x, min_y, max_y)
              VALUES (?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (region_id, url_template, pixel_ratio, z, x) DO UPDATE
                SET min_y = min(min_y, excluded.min_y), max_y = max(max_y, excluded.max_y)
            """)
        for row in rows { try statement.execute(arguments: row.column.key(region) + [row.minY, row.maxY]) }
    }

    /// Drops a removed pack's extents (with its region row).
    static func remove(_ region: RegionID, _ db: Database) throws {
        guard try db.tableExists(table) else { return }
        try db.execute(sql: "DELETE FROM packfs_pack_extents WHERE region_id = ?", arguments: [region.rawValue])
    }
}
