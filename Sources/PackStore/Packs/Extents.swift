import SQLiteDB

/// Where each pack's tiles lie: a row per pack and tile column (template, pixel ratio, z, x)
/// with the lowest and highest y the pack holds there (`packfs_pack_extents`).
///
/// Why: the `tiles` index orders every pack's tiles together, so a question about one pack
/// ("which zooms", "which columns", "which rows of this column") walked the entries of every
/// pack of the same template until it met one of its own: with a 1,000,000-tile neighbour, `ls`
/// of a small pack took seconds. With the extents, each question seeks the pack's own columns and
/// reads the index only between the pack's lowest and highest row there, which the pack's own
/// tiles fill (a tile is one row whoever holds it): a listing costs the pack, not its neighbours.
///
/// Kept by a trigger on `region_tiles` (a new membership widens its column's extent), in the
/// transaction of the change, whichever program makes it. A membership going leaves the extent
/// as it was: an extent may be wider than the pack (never narrower), which costs a reader a few
/// index entries, not a wrong answer; the pack's removal deletes its rows. A pack's extents are
/// complete exactly when its `Counting` figures are (the background count of a database an app
/// filled measures both from one snapshot), and readers use them only then.
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
        // A region id can be used again (MapLibre's `regions.id` is a plain rowid): a new pack
        // starts with no extents, whatever a pack of that id left.
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
