import Foundation

/// Offline databases as MapLibre Native's apps leave them, made by the `sqlite3` shell from SQL
/// (MapLibre's own schema text, no PackFS code), for the merge tests: what `packfs import`
/// meets in a `cache.db` pulled from a phone.
public enum MapLibreSideFile {
    /// MapLibre's `offline_schema.sql` (stable version 6: tables, constraints and indexes), from the
    /// reference copy the schema tests compare PackFS's with, after the `auto_vacuum` MapLibre sets.
    /// Version 5 lacks the two `must_revalidate` columns (added by `migrateToVersion6`).
    public static func schema(version: Int) throws -> String {
        let reference = try String(contentsOf: ProjectPaths.root.appendingPathComponent(
            "Tests/PackStoreTests/Reference/offline_schema_v6.sql"), encoding: .utf8)
        let tables = version >= 6 ? reference
            : reference.replacingOccurrences(of: "  must_revalidate INTEGER NOT NULL DEFAULT 0,\n", with: "")
        return "PRAGMA auto_vacuum = INCREMENTAL;\n" + tables
    }

    /// Creates `path` with the schema of `version`, runs `rows` (SQL; the shell's `readfile()`
    /// and `sqlar_compress()`, zlib as MapLibre's `compress`, are at hand), then sets
    /// `PRAGMA user_version`, all in one `sqlite3 -bail` run.
    public static func create(_ path: String, version: Int = 6, rows: String) throws {
        let sql = try schema(version: version) + "\nBEGIN;\n" + rows + "\nCOMMIT;\nPRAGMA user_version = \(version);\n"
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
