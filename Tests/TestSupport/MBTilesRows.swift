import Basics
import Foundation
import SQLiteDB

/// An MBTiles file's rows read back with plain SQL, not through PackFS's import: what the tests of
/// export, import, diff and patch compare. The file is opened read-only.
public enum MBTilesRows {
    /// The tile rows as `z/x/row hex`, NULL data as `NULL`, by zoom, column and row.
    public static func tiles(of path: String) throws -> [String] {
        try reading(path) { db in
            let sql = "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY 1, 2, 3"
            return try Row.fetchAll(db, sql: sql).map { row in
                let data = (row[3] as Data?).map { $0.map { String(format: "%02x", $0) }.joined() } ?? "NULL"
                return "\(row[0] as Int)/\(row[1] as Int)/\(row[2] as Int) \(data)"
            }
        }
    }

    /// The metadata rows, NULL values as `NULL`.
    public static func metadata(of path: String) throws -> [String: String] {
        try reading(path) { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, value FROM metadata").map {
                ($0[0] as String, ($0[1] as String?) ?? "NULL")
            })
        }
    }

    /// martin's `calc_agg_tiles_hash` over the file's rows, in SQL's order and texts (its
    /// md5_concat skips a NULL tile_data).
    public static func hash(of path: String) throws -> String {
        try reading(path) { db in
            var md5 = MD5()
            for row in try Row.fetchAll(db, sql: """
                SELECT CAST(zoom_level AS TEXT), CAST(tile_column AS TEXT), CAST(tile_row AS TEXT), tile_data
                  FROM tiles ORDER BY zoom_level, tile_column, tile_row
                """)
            {
                for index in 0..<3 { md5.update(row[index] as String) }
                if let data = row[3] as Data? { md5.update(data) }
            }
            return md5.hex()
        }
    }

    private static func reading<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }
}
