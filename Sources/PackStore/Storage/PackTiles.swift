import SQLiteDB

/// Each pack's tiles by key, with their row and served size (`packfs_pack_tiles`), so that a listing reads one
/// range of one b-tree in key order instead of the `tiles` index, a membership and a size per tile, whose pages
/// a big database scatters across the file (docs/internals.md, "Listings and sizes"). About 70 bytes a tile.
/// Triggers keep it whichever program writes: a membership, a tile's key or row id, and a recorded size each
/// change it. A size is the recorded one (`TileSizes.swift`) or NULL: the listing then reads the tile's row.
/// A pack is listed from it only once marked complete (`packfs_pack_tiles_ready`), which a pack made while
/// the triggers exist is from its first row; older packs are listed as before (`TreeSQL.sizedRows`).
enum PackTiles {
    static let table = "packfs_pack_tiles"

    /// The key columns of a row, from the tile row `k`.
    private static let key = ["url_template", "pixel_ratio", "z", "x", "y"]

    /// Inserts the rows of tile `tile` (`new` or `k`, a tiles row) in the packs `regions` (a select of
    /// region ids, `r.region_id`), with its recorded size.
    private static func insert(_ tile: String, from regions: String) -> String {
        """
        INSERT OR REPLACE INTO packfs_pack_tiles (region_id, url_template, pixel_ratio, z, x, y, tile_id, size)
          SELECT r.region_id, \(key.map { "\(tile).\($0)" }.joined(separator: ", ")), \(tile).id,
              (SELECT s.size FROM packfs_tile_sizes s WHERE s.tile_id = \(tile).id)
            \(regions) AND \(Runs.namesFile(tile));
        """
    }

    /// The rows of tile row `id` in pack `region`, each key column a constant (a seek of the primary key).
    private static func rowsOf(id: String, region: String) -> String {
        key.reduce("region_id = \(region) AND tile_id = \(id)") { clause, column in
            clause + " AND \(column) = (SELECT k.\(column) FROM tiles k WHERE k.id = \(id))"
        }
    }

    /// The rows of the tile `tile` (`old`, a tiles row) in every pack that holds it.
    private static func rowsOf(tile: String) -> String {
        key.reduce("region_id IN (SELECT region_id FROM region_tiles WHERE tile_id = \(tile).id) AND tile_id = \(tile).id") {
            $0 + " AND \($1) = \(tile).\($1)"
        }
    }

    /// Sets the size of tile row `id`'s rows in every pack that holds it.
    private static func setSize(_ size: String, id: String) -> String {
        let rows = key.reduce("region_id IN (SELECT region_id FROM region_tiles WHERE tile_id = \(id)) AND tile_id = \(id)") {
            $0 + " AND \($1) = (SELECT k.\($1) FROM tiles k WHERE k.id = \(id))"
        }
        return "UPDATE packfs_pack_tiles SET size = \(size) WHERE \(rows);"
    }

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_tiles (
          region_id INTEGER NOT NULL, url_template TEXT NOT NULL, pixel_ratio INTEGER NOT NULL,
          z INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL, tile_id INTEGER NOT NULL, size INTEGER,
          PRIMARY KEY (region_id, url_template, pixel_ratio, z, x, y)
        ) WITHOUT ROWID
        """,
        "CREATE TABLE IF NOT EXISTS packfs_pack_tiles_ready (region_id INTEGER NOT NULL PRIMARY KEY)",
        // A membership: the tile's row in the pack (none yet if the tile row comes after, as below).
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_member_insert AFTER INSERT ON region_tiles
        BEGIN \(insert("k", from: "FROM tiles k CROSS JOIN (SELECT new.region_id AS region_id) r WHERE k.id = new.tile_id")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_member_delete AFTER DELETE ON region_tiles
        BEGIN DELETE FROM packfs_pack_tiles WHERE \(rowsOf(id: "old.tile_id", region: "old.region_id")); END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_member_update AFTER UPDATE ON region_tiles
        BEGIN
          DELETE FROM packfs_pack_tiles WHERE \(rowsOf(id: "old.tile_id", region: "old.region_id"));
          \(insert("k", from: "FROM tiles k CROSS JOIN (SELECT new.region_id AS region_id) r WHERE k.id = new.tile_id"))
        END
        """,
        // A tile row whose memberships came first (an app may write them in either order).
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_tile_insert AFTER INSERT ON tiles
        BEGIN \(insert("new", from: "FROM region_tiles r WHERE r.tile_id = new.id")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_tile_delete AFTER DELETE ON tiles
        BEGIN DELETE FROM packfs_pack_tiles WHERE \(rowsOf(tile: "old")); END
        """,
        // A tile moved to another key or row id: its rows move with it.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_tile_key AFTER UPDATE OF id, url_template, pixel_ratio, z, x, y ON tiles
        BEGIN
          DELETE FROM packfs_pack_tiles WHERE \(rowsOf(tile: "old"));
          \(insert("new", from: "FROM region_tiles r WHERE r.tile_id = new.id"))
        END
        """,
        // A size recorded or dropped (the sizes triggers drop it when an app changes the content).
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_size_insert AFTER INSERT ON packfs_tile_sizes
        BEGIN \(setSize("new.size", id: "new.tile_id")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_size_update AFTER UPDATE ON packfs_tile_sizes
        BEGIN \(setSize("NULL", id: "old.tile_id")) \(setSize("new.size", id: "new.tile_id")) END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_size_delete AFTER DELETE ON packfs_tile_sizes
        BEGIN \(setSize("NULL", id: "old.tile_id")) END
        """,
        // A new pack is complete from its first row, unless memberships an app left under a reused id are there.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_region_insert AFTER INSERT ON regions
        BEGIN
          DELETE FROM packfs_pack_tiles WHERE region_id = new.id;
          DELETE FROM packfs_pack_tiles_ready WHERE region_id = new.id;
          INSERT INTO packfs_pack_tiles_ready (region_id)
            SELECT new.id WHERE NOT EXISTS (SELECT 1 FROM region_tiles WHERE region_id = new.id);
        END
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_pack_tiles_region_delete AFTER DELETE ON regions
        BEGIN
          DELETE FROM packfs_pack_tiles_ready WHERE region_id = old.id;
          DELETE FROM packfs_pack_tiles WHERE region_id = old.id;
        END
        """,
    ]

    /// Makes the table and its triggers in a file's first write, before any row changes (`Counting.install`): a pack
    /// made from then on is complete; one made before is listed as before. Nothing is built at mount.
    static func install(_ db: Database) throws {
        guard try !db.tableExists(table) else { return }
        try Migrations.ensureBookkeeping(db)
    }

    /// Whether `region` is listed from the table (it is complete).
    static func ready(_ region: RegionID, _ db: Database) throws -> Bool {
        guard try db.tableExists("packfs_pack_tiles_ready") else { return false }
        return try db.holds(readySQL, [region.rawValue])
    }

    static let readySQL = StatementKey("SELECT 1 FROM packfs_pack_tiles_ready WHERE region_id = ?")

    /// A page of a column's tiles with content, ascending (`[0]`) or descending (`[1]`): y, row id, and the
    /// served size where known without decoding. A recorded size implies content: only a tile without one
    /// reads its row (`TreeSQL.sizedRows` does the same).
    static let rows = [false, true].map { page(descending: $0, sized: true) }

    /// `rows` without the size, for a listing of names: a tile without a recorded size is not read for
    /// one (its length would read the whole blob), only checked for content.
    static let names = [false, true].map { page(descending: $0, sized: false) }

    private static func page(descending: Bool, sized: Bool) -> StatementKey {
        let size = """
            , CASE WHEN p.size IS NOT NULL THEN p.size ELSE (SELECT CASE
                WHEN t.compressed = 0 AND substr(t.data, 1, 2) != x'1F8B' THEN length(t.data) END
                FROM tiles t WHERE t.id = p.tile_id) END
            """
        return StatementKey("""
            SELECT p.y, p.tile_id\(sized ? size : "")
              FROM packfs_pack_tiles p
              WHERE p.region_id = ? AND p.url_template = ? AND p.pixel_ratio = ? AND p.z = ? AND p.x = ?
                AND p.y \(descending ? "<" : ">") ? AND p.y BETWEEN ? AND ? AND typeof(p.y) = 'integer'
                AND (p.size IS NOT NULL OR EXISTS (SELECT 1 FROM tiles t WHERE t.id = p.tile_id AND t.data IS NOT NULL))
              ORDER BY p.y \(descending ? "DESC" : "ASC") LIMIT ?
            """)
    }
}
