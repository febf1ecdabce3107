import Basics
import CSQLite
import FoundationEssentials
import SQLiteDB

/// A stored value's bytes where SQLite holds them for the row being stepped, as `StoredData`
/// (`data` NOT NULL): valid only inside the call it is passed to. The whole-pack walks hand
/// tiles out so (`forEachPackTileBytes`): `packfs verify` and the hash read every byte of a pack,
/// and a copy per tile into `Data` plus GRDB's row decoding (the layer of the time) was a third of their time.
public struct StoredBytes {
    public let bytes: UnsafeRawBufferPointer
    public let compressed: Bool

    public init(bytes: UnsafeRawBufferPointer, compressed: Bool) {
        self.bytes = bytes
        self.compressed = compressed
    }

    /// A copy that outlives the row.
    public var stored: StoredData { StoredData(bytes: Data(bytes), compressed: compressed) }
}

/// Raw stepping of a SQLiteDB statement (its arguments set), reading columns by index with SQLite's
/// own calls: no `Row` made per row. The values are read with the same leniency and the same
/// errors as `Row.stored` and `Row.lenient` (`RowDecoding`).
enum RawRows {
    /// Steps `statement` to its end, calling `row` with each row; the number of rows. The
    /// statement is reset afterwards (SQLiteDB resets it again when it next sets arguments).
    static func step(_ statement: Statement, in db: Database, _ row: (SQLiteStatement) throws -> Void) throws -> Int {
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        var count = 0
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { return count }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) },
                    sql: statement.sql)
            }
            count += 1
            try row(raw)
        }
    }

    /// An integer column (the queries select only integers where they use this).
    static func int(_ raw: SQLiteStatement, _ index: CInt, _ column: String) throws -> Int {
        guard sqlite3_column_type(raw, index) == SQLITE_INTEGER, let value = Int(exactly: sqlite3_column_int64(raw, index))
        else { throw StoreError.invalidData(Row.mismatch(DatabaseValue(sqliteStatement: raw, index: index), column, Int.self)) }
        return value
    }

    /// `data` and `compressed` at `index` and `index + 1`, as `OfflineDatabase.storedData` reads
    /// them: a blob or a text's bytes (any other value throws), and compressed when a number
    /// other than 0 (anything else is not).
    static func storedBytes(_ raw: SQLiteStatement, _ index: CInt, of table: String) throws -> StoredBytes {
        let type = sqlite3_column_type(raw, index)
        guard type == SQLITE_BLOB || type == SQLITE_TEXT else {
            throw StoreError.invalidData(Row.mismatch(DatabaseValue(sqliteStatement: raw, index: index), "\(table).data", Data.self))
        }
        // sqlite3_column_blob first, then the count (SQLite's rule for a text converted in place).
        let start = sqlite3_column_blob(raw, index)
        let count = Int(sqlite3_column_bytes(raw, index))
        let bytes = count > 0 ? UnsafeRawBufferPointer(start: start, count: count) : UnsafeRawBufferPointer(start: nil, count: 0)
        let flag = index + 1
        let compressed: Bool
        if sqlite3_column_type(raw, flag) == SQLITE_INTEGER {
            compressed = sqlite3_column_int64(raw, flag) != 0
        } else {
            compressed = Bool.fromDatabaseValue(DatabaseValue(sqliteStatement: raw, index: flag)) ?? false
        }
        return StoredBytes(bytes: bytes, compressed: compressed)
    }
}
