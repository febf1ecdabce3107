import FoundationEssentials
import SQLiteDB

/// An MBTiles file, read-only: it is someone else's. One without the spec's `metadata` and `tiles` tables or views is
/// refused by `open`. All read from it is outside data: a tile row without integer coordinates or data is an error
/// naming the row. Sendable: two constants, and SQLiteDB's queue serializes what reaches the file.
final class MBTilesReader: Sendable {
    let path: String
    private let queue: DatabaseQueue

    private init(path: String, queue: DatabaseQueue) {
        self.path = path
        self.queue = queue
    }

    static func open(_ path: String) throws -> MBTilesReader {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw InterchangeError.noSuchFile(path) }
        guard !isDirectory else { throw InterchangeError.cannotRead(path, reason: "it is a directory") }
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw InterchangeError.cannotRead(path, reason: describe(error))
        }
        let reader = MBTilesReader(path: path, queue: queue)
        do {
            try reader.requireColumns(of: "metadata", ["name", "value"])
            try reader.requireColumns(of: "tiles", ["zoom_level", "tile_column", "tile_row", "tile_data"])
        } catch {
            try? queue.close()
            throw error
        }
        return reader
    }

    func close() { try? queue.close() }

    /// The metadata rows as text (numbers too); a row whose name or value is NULL or a blob is left out.
    func metadata() throws -> [String: String] {
        try read { db in
            var values: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata") {
                guard let name = Self.text(row[0]), let value = Self.text(row[1]) else { continue }
                values[name] = values[name] ?? value
            }
            return values
        }
    }

    /// Calls `body` with every tile as stored (TMS row) in martin's hash order (the spec's unique index needs no sort).
    func forEachTile(_ body: (_ z: Int, _ column: Int, _ row: Int, _ data: Data) throws -> Void) throws {
        try forEachRow { z, column, tmsRow, data in
            guard let data else {
                throw InterchangeError.damaged(path, detail: "tile \(z)/\(column)/\(tmsRow) (TMS row) has no data")
            }
            try body(z, column, tmsRow, data)
        }
    }

    /// The same, with a NULL `tile_data` given as nil (a patch's deleted tile); data of another type is still refused.
    func forEachRow(_ body: (_ z: Int, _ column: Int, _ row: Int, _ data: Data?) throws -> Void) throws {
        try read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY zoom_level, tile_column, tile_row
                """)
            while let row = try rows.next() {
                let coordinates = (0..<3).map { Self.integer(row[$0]) }
                guard let z = coordinates[0], let column = coordinates[1], let tmsRow = coordinates[2] else {
                    let shown = (0..<3).map { String(describing: (row[$0] as DatabaseValue)) }.joined(separator: "/")
                    throw InterchangeError.damaged(path, detail: "tile \(shown) does not have integer coordinates")
                }
                let value: DatabaseValue = row[3]
                let data = Self.bytes(value)
                guard data != nil || value.isNull else {
                    throw InterchangeError.damaged(path, detail: "tile \(z)/\(column)/\(tmsRow) (TMS row) has no data")
                }
                try body(z, column, tmsRow, data)
            }
        }
    }

    func tableNames() throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
        }
    }

    private func requireColumns(of table: String, _ wanted: [String]) throws {
        let columns = try read { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
        }
        let missing = wanted.filter { !columns.contains($0) }
        guard missing.isEmpty else {
            let what = columns.isEmpty
                ? "it has no `\(table)` table" : "its `\(table)` table has no \(missing.joined(separator: ", "))"
            throw InterchangeError.notInFormat(path, format: "an MBTiles file", reason: what)
        }
    }

    /// Reads the file; SQLite's errors in words that name it.
    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.read(body)
        } catch let error as DatabaseError {
            throw InterchangeError.cannotRead(path, reason: Self.describe(error))
        }
    }

    private static func describe(_ error: Error) -> String {
        guard let error = error as? DatabaseError else { return String(describing: error) }
        return error.resultCode == .SQLITE_NOTADB ? "not an SQLite file" : (error.message ?? error.description)
    }

    private static func integer(_ value: DatabaseValue) -> Int? {
        guard case .int64(let number) = value.storage else { return nil }
        return Int(exactly: number)
    }

    private static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let text): return text
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .null, .blob: return nil
        }
    }

    /// A blob as it is; text as its bytes (SQLite hands either to a reader of `tile_data`).
    private static func bytes(_ value: DatabaseValue) -> Data? {
        switch value.storage {
        case .blob(let data): return data
        case .string(let text): return Data(text.utf8)
        case .null, .int64, .double: return nil
        }
    }
}
