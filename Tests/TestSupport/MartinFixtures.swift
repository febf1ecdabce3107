import Foundation

/// martin's MBTiles fixtures, built into files with the `sqlite3` shell as martin's own tests build
/// them, and the hashes martin computes for them (its e2e-tests `mbtiles_diff.rs` and
/// `validate_accepts_zoomed_world_cities` snapshots). Only `world_cities` is kept as martin's SQL
/// dump (Fixtures/martin/world_cities.sql); its variants are that dump plus the edits in `variants`,
/// which give the same rows as martin's dumps of them (Fixtures/README.md).
public enum MartinFixtures {
    public static let directory = ProjectPaths.fixtures.appendingPathComponent("martin")

    /// `agg_tiles_hash` as martin computes it from the tiles, by fixture name: mbtiles_diff.rs
    /// (`cache.mbtiles`, a copy of world_cities: "agg_tiles_hash.new"; `applied.mbtiles`, the
    /// modified tiles) and the zoomed_world_cities validate snapshot.
    public static let hashes = [
        "world_cities": "08934F8E3E58DED510920E1DE6F4E78F",
        "world_cities_modified": "72D8C992AF67EC97093B0087933FA160",
        "zoomed_world_cities": "AC15E26A1FCF82FDB6D0E8F43EE37821",
    ]

    /// The `agg_tiles_hash` rows the dumps hold, where they are stale (martin's own copy says
    /// "agg_tiles_hash.old=84792BF4..."): such a file is refused on import unless accepted.
    public static let staleHashes = [
        "world_cities": "84792BF4EE9AEDDC5B1A60E707011FEE",
        "world_cities_modified": "578FB5BD64746C39E3D344662947FD0D",
    ]

    /// The empty gzipped tile of martin's fixtures, as an SQL blob literal, and its MD5.
    private static let emptyTile = "x'1f8b080000000000000303000000000000000000'"
    private static let emptyTileMD5 = "7029066C27AC6F5EF18D660D5741979A"
    private static let modifiedDescription = "A modified version of major cities from Natural Earth data"

    /// The SQL turning a built world_cities into each variant. world_cities_modified: the
    /// description and stored hash changed, tile 0/0/0 deleted, tile 4/4/4 added.
    /// world_cities_diff: martin's patch from world_cities to world_cities_modified (flat schema),
    /// its hash rows stale as in martin's dump (its own `agg_tiles_hash` is not that of its rows).
    /// zoomed_world_cities: the hash-view schema (`tiles` a view of `tiles_with_hash`), one z6 tile.
    private static let variants = [
        "world_cities_modified": """
            UPDATE metadata SET value = '\(modifiedDescription)' WHERE name = 'description';
            UPDATE metadata SET value = '\(staleHashes["world_cities_modified"] ?? "")' WHERE name = 'agg_tiles_hash';
            DELETE FROM tiles WHERE zoom_level = 0;
            INSERT INTO tiles VALUES (4, 4, 4, \(emptyTile));
            """,
        "world_cities_diff": """
            DELETE FROM metadata;
            INSERT INTO metadata VALUES ('description', '\(modifiedDescription)'),
                ('agg_tiles_hash_before_apply', '\(staleHashes["world_cities"] ?? "")'),
                ('agg_tiles_hash_after_apply', '\(staleHashes["world_cities_modified"] ?? "")'),
                ('agg_tiles_hash', '6A51FC6A9048BE033C08CDDEC0D028AC');
            DELETE FROM tiles;
            INSERT INTO tiles VALUES (0, 0, 0, NULL), (4, 4, 4, \(emptyTile));
            """,
        "zoomed_world_cities": """
            CREATE TEMP TABLE flat AS SELECT name, value FROM metadata;
            DROP TABLE metadata;
            CREATE TABLE metadata (name text NOT NULL PRIMARY KEY, value text);
            INSERT INTO metadata SELECT name, value FROM flat;
            UPDATE metadata SET value = '\(hashes["zoomed_world_cities"] ?? "")' WHERE name = 'agg_tiles_hash';
            DROP TABLE tiles;
            CREATE TABLE tiles_with_hash (
                zoom_level integer NOT NULL, tile_column integer NOT NULL, tile_row integer NOT NULL,
                tile_data blob, tile_hash text, PRIMARY KEY(zoom_level, tile_column, tile_row));
            INSERT INTO tiles_with_hash VALUES (6, 38, 44, \(emptyTile), '\(emptyTileMD5)');
            CREATE VIEW tiles AS SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles_with_hash;
            """,
    ]

    /// martin's patch case built in `directory`: world_cities (old) and world_cities_modified (new).
    public static func patchSides(in directory: TemporaryDirectory) throws -> (old: String, new: String) {
        (try build("world_cities", in: directory), try build("world_cities_modified", in: directory))
    }

    /// Builds fixture `name` as `directory/file` (default `name.mbtiles`) and returns its path.
    public static func build(_ name: String, in directory: TemporaryDirectory, as file: String? = nil) throws -> String {
        guard let edits = name == "world_cities" ? "" : variants[name] else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no martin fixture \(name)"])
        }
        let path = directory.path(file ?? "\(name).mbtiles")
        let sql = Self.directory.appendingPathComponent("world_cities.sql").path
        let script = "sqlite3 \"$1\" < \"$2\" && sqlite3 \"$1\" \"BEGIN; $3 COMMIT;\""
        let outcome = try Command.run("/bin/sh", ["-c", script, "sh", path, sql, edits])
        guard outcome.status == 0 else {
            let message = "sqlite3 \(path) < \(sql), then \(name)'s edits: \(outcome.text)"
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: message])
        }
        return path
    }
}
