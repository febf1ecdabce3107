import Foundation

/// Patches in martin's format made with the sqlite3 command line, independently of PackFS's own
/// `packfs diff`: the tiles of NEW that OLD lacks or holds with other bytes, and a NULL row for
/// each tile of OLD that NEW lacks; metadata with the two hashes given.
public enum PatchFiles {
    public static func make(old: String, new: String, to path: String, before: String, after: String,
                            extraSQL: String = "") throws {
        let sql = """
            ATTACH '\(old)' AS old; ATTACH '\(new)' AS new;
            CREATE TABLE metadata (name TEXT, value TEXT);
            CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
            CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
            INSERT INTO tiles SELECT n.zoom_level, n.tile_column, n.tile_row, n.tile_data FROM new.tiles n
              LEFT JOIN old.tiles o USING (zoom_level, tile_column, tile_row)
              WHERE o.tile_data IS NULL OR o.tile_data != n.tile_data;
            INSERT INTO tiles SELECT o.zoom_level, o.tile_column, o.tile_row, NULL FROM old.tiles o
              LEFT JOIN new.tiles n USING (zoom_level, tile_column, tile_row) WHERE n.zoom_level IS NULL;
            INSERT INTO metadata VALUES ('agg_tiles_hash_before_apply', '\(before)'), ('agg_tiles_hash_after_apply', '\(after)');
            \(extraSQL)
            """
        try sqlite(path, sql)
    }

    /// Runs `sql` on the file at `path` with the sqlite3 command line (-bail: the first error fails).
    public static func sqlite(_ path: String, _ sql: String) throws {
        let outcome = try Command.run("/usr/bin/sqlite3", ["-bail", path, sql])
        guard outcome.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "sqlite3 \(path): \(outcome.text)"])
        }
    }
}
