import CSQLite
import FoundationEssentials

/// The row a statement is on, read in place by column index; nothing is copied but what a getter returns.
/// Valid only inside its closure: the next step or the reset moves SQLite's buffers. The getters never
/// trap and use SQLite's own conversions; optional ones answer nil for NULL.
public struct StatementRow {
    /// The raw statement, for the C API.
    public let sqliteStatement: SQLiteStatement

    @usableFromInline
    init(_ statement: SQLiteStatement) { sqliteStatement = statement }

    public func isNull(_ index: Int) -> Bool { type(index) == SQLITE_NULL }

    /// The column as an integer, as SQLite converts it (NULL and text that is no number are 0).
    public func int64(_ index: Int) -> Int64 { sqlite3_column_int64(sqliteStatement, CInt(clamping: index)) }

    /// The column when it holds an integer; nil for NULL, a real, text or a blob.
    public func integer(_ index: Int) -> Int64? { type(index) == SQLITE_INTEGER ? int64(index) : nil }

    /// Whether the column holds bytes as stored (a blob or text), as `withUnsafeBlob` reads them.
    public func holdsBytes(_ index: Int) -> Bool {
        let type = type(index)
        return type == SQLITE_BLOB || type == SQLITE_TEXT
    }

    /// The column as a flag: any number but 0 is true (NULL is false).
    public func bool(_ index: Int) -> Bool { int64(index) != 0 }

    /// The column as text (a number converted as SQLite does), nil for NULL.
    public func text(_ index: Int) -> String? {
        isNull(index) ? nil : DatabaseValue.text(sqliteStatement, CInt(clamping: index))
    }

    /// The column's bytes copied out, nil for NULL.
    public func blob(_ index: Int) -> Data? {
        withUnsafeBlob(at: index) { bytes in bytes.map { Data($0) } }
    }

    /// Calls `body` with the column's bytes where SQLite holds them (nil for NULL), valid only during
    /// the call: a stored tile is read or inflated without a copy.
    public func withUnsafeBlob<T>(at index: Int, _ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        guard !isNull(index) else { return try body(nil) }
        let column = CInt(clamping: index)
        // The address first, then the count: SQLite's rule for a value converted in place.
        let start = sqlite3_column_blob(sqliteStatement, column)
        let count = Int(sqlite3_column_bytes(sqliteStatement, column))
        guard let start, count > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The column's value, copied (for a message, or a strict conversion).
    public func databaseValue(_ index: Int) -> DatabaseValue {
        DatabaseValue(sqliteStatement: sqliteStatement, index: CInt(clamping: index))
    }

    private func type(_ index: Int) -> CInt { sqlite3_column_type(sqliteStatement, CInt(clamping: index)) }
}

// A row is its statement's, on its connection's thread, for one step.
@available(*, unavailable)
extension StatementRow: Sendable {}

extension Statement {
    /// Calls `body` with each row in place (`arguments` nil: those of `setArguments`); the number of
    /// rows. The statement is reset afterwards, ending its read.
    @discardableResult
    public func forEachRow(arguments: StatementArguments? = nil, _ body: (StatementRow) throws -> Void) throws -> Int {
        try run(arguments) {
            let row = StatementRow(sqliteStatement)
            var count = 0
            while try step() {
                count += 1
                try body(row)
            }
            return count
        }
    }

    /// `value` of the first row, read in place; nil when there is none. The statement is reset
    /// right after, without stepping further. Inlinable, so that a caller's `T` is specialized: unspecialized, every
    /// call looked up `Optional<T>`'s metadata at run time (340 instructions a tile lookup, `instructions.sh`).
    @inlinable
    public func firstRow<T>(arguments: StatementArguments? = nil, _ value: (StatementRow) throws -> T) throws -> T? {
        try run(arguments) { try step() ? try value(StatementRow(sqliteStatement)) : nil }
    }
}
