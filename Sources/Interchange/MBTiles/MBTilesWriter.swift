import FoundationEssentials
import SQLiteDB

/// Writes one MBTiles 1.3 file (`metadata`, a plain `tiles` table, the spec's indexes and `application_id`) into a
/// sibling in one transaction, renamed over the target once committed: a failure leaves no half-written file.
/// Patches (`packfs diff`) too: NULL data for deleted tiles, NULL values for removed metadata rows.
enum MBTilesWriter {
    /// SQLite's registered application id for MBTiles: "MPBX".
    static let applicationID: Int32 = 0x4D50_4258

    /// A `metadata` row; a nil value is written as NULL.
    typealias MetadataRow = (name: String, value: String?)

    static let schema = """
        CREATE TABLE metadata (name text, value text);
        CREATE UNIQUE INDEX name ON metadata (name);
        CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
        CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
        """

    /// Writes `path`: `fill` stores the tiles through its inserter, then returns the metadata rows (the zooms are known
    /// only then). With `replacing` false, a file made at `path` meanwhile is kept and the write fails.
    static func write(
        to path: String, replacing: Bool = true, _ fill: (inout TileInserter) throws -> [MetadataRow]
    ) throws {
        let partial = ExportPlacement.sibling(of: path, "partial")
        do {
            try fillFile(partial, fill)
            if replacing {
                try ExportPlacement.moveIntoPlace(partial, path)
            } else {
                try ExportPlacement.moveIntoPlaceNew(partial, path)
            }
        } catch {
            for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
            throw error
        }
    }

    private static func fillFile(_ path: String, _ fill: (inout TileInserter) throws -> [MetadataRow]) throws {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path)
        } catch {
            throw InterchangeError.cannotWrite(path, action: "create", reason: "\(error)")
        }
        defer { try? queue.close() }
        do {
            try queue.write { db in
                try db.execute(sql: "PRAGMA application_id = \(applicationID)")
                try db.execute(sql: schema)
                var inserter = try TileInserter(db)
                let rows = try fill(&inserter)
                let statement = try db.makeStatement(sql: "INSERT INTO metadata (name, value) VALUES (?, ?)")
                for row in rows { try statement.execute(arguments: [row.name, row.value]) }
            }
        } catch let error as DatabaseError {
            throw InterchangeError.cannotWrite(path, action: "write", reason: error.message ?? error.description)
        }
        do {
            try queue.close()
        } catch {
            throw InterchangeError.cannotWrite(path, action: "close", reason: "\(error)")
        }
    }

    /// Inserts tiles into the file's one transaction.
    struct TileInserter {
        private let statement: Statement

        init(_ db: Database) throws {
            statement = try db.makeStatement(sql: """
                INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)
                """)
        }

        /// Stores one tile; `row` is the TMS row (the spec's, south up), nil data a patch's deleted tile (NULL).
        mutating func insert(z: Int, column: Int, row: Int, data: Data?) throws {
            try statement.execute(arguments: [z, column, row, data])
        }
    }
}
