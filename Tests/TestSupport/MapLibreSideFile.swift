import Foundation

/// Offline databases as MapLibre Native's apps leave them, made by the `sqlite3` shell from SQL
/// (MapLibre's own schema text, no PackFS code), for the merge tests: what `packfs import`
/// meets in a `cache.db` pulled from a phone.
public enum MapLibreSideFile {
    /// MapLibre's `offline_schema.sql` (stable version 6): tables, constraints and indexes. Version
    /// 5 lacks the two `must_revalidate` columns (added by `migrateToVersion6`).
    public static func schema(version: Int) -> String {
        let revalidate = version >= 6 ? ",\n  must_revalidate INTEGER NOT NULL DEFAULT 0" : ""
        return """
            PRAGMA auto_vacuum = INCREMENTAL;
            CREATE TABLE resources (
              id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
              url TEXT NOT NULL,
              kind INTEGER NOT NULL,
              expires INTEGER,
              modified INTEGER,
              etag TEXT,
              data BLOB,
              compressed INTEGER NOT NULL DEFAULT 0,
              accessed INTEGER NOT NULL\(revalidate),
              UNIQUE (url)
            );
            CREATE TABLE tiles (
              id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
              url_template TEXT NOT NULL,
              pixel_ratio INTEGER NOT NULL,
              z INTEGER NOT NULL,
              x INTEGER NOT NULL,
              y INTEGER NOT NULL,
              expires INTEGER,
              modified INTEGER,
              etag TEXT,
              data BLOB,
              compressed INTEGER NOT NULL DEFAULT 0,
              accessed INTEGER NOT NULL\(revalidate),
              UNIQUE (url_template, pixel_ratio, z, x, y)
            );
            CREATE TABLE regions (
              id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
              definition TEXT NOT NULL,
              description BLOB
            );
            CREATE TABLE region_resources (
              region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
              resource_id INTEGER NOT NULL REFERENCES resources(id),
              UNIQUE (region_id, resource_id)
            );
            CREATE TABLE region_tiles (
              region_id INTEGER NOT NULL REFERENCES regions(id) ON DELETE CASCADE,
              tile_id INTEGER NOT NULL REFERENCES tiles(id),
              UNIQUE (region_id, tile_id)
            );
            CREATE INDEX resources_accessed ON resources (accessed);
            CREATE INDEX tiles_accessed ON tiles (accessed);
            CREATE INDEX region_resources_resource_id ON region_resources (resource_id);
            CREATE INDEX region_tiles_tile_id ON region_tiles (tile_id);
            """
    }

    /// Creates `path` with the schema of `version`, runs `rows` (SQL; the shell's `readfile()`
    /// and `sqlar_compress()`, zlib as MapLibre's `compress`, are at hand), then sets
    /// `PRAGMA user_version`, all in one `sqlite3 -bail` run.
    public static func create(_ path: String, version: Int = 6, rows: String) throws {
        let sql = schema(version: version) + "\nBEGIN;\n" + rows + "\nCOMMIT;\nPRAGMA user_version = \(version);\n"
        try run(path, sql)
    }

    /// Runs SQL on `path` with the `sqlite3` shell; throws with its output when it fails.
    public static func run(_ path: String, _ sql: String) throws {
        let script = path + ".sql"
        try sql.write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        let outcome = try Command.run("/usr/bin/sqlite3", ["-bail", path, ".read \(script)"])
        guard outcome.status == 0 else { throw Failure(message: "sqlite3 \(path): \(outcome.text)") }
    }

    /// A region definition in MapLibre's compact form (numbers with a decimal point).
    public static func definition(style: String, maxZoom: Int = 2) -> String {
        #"{"style_url":"\#(style)","min_zoom":0.0,"max_zoom":\#(maxZoom).0,"pixel_ratio":1.0,"include_ideographs":false,"bounds":[-60.0,-170.0,60.0,170.0]}"#
    }

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
