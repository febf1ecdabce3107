import CSQLite
import FoundationEssentials

/// One SQLite value, in its storage class.
public struct DatabaseValue: Hashable, Sendable, CustomStringConvertible {
    public enum Storage: Sendable {
        case null
        case int64(Int64)
        case double(Double)
        case string(String)
        case blob(Data)
    }

    public let storage: Storage

    public static let null = DatabaseValue(storage: .null)

    @usableFromInline
    init(storage: Storage) { self.storage = storage }

    /// Column `index` of the row `sqliteStatement` is on, copied out.
    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqlite3_column_type(sqliteStatement, index) {
        case SQLITE_INTEGER: storage = .int64(sqlite3_column_int64(sqliteStatement, index))
        case SQLITE_FLOAT: storage = .double(sqlite3_column_double(sqliteStatement, index))
        case SQLITE_TEXT: storage = .string(Self.text(sqliteStatement, index))
        case SQLITE_BLOB: storage = .blob(Self.blob(sqliteStatement, index))
        default: storage = .null
        }
    }

    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    /// As GRDB: NULL, 1, 1.5, "text" (quoted), Data(3 bytes).
    public var description: String {
        switch storage {
        case .null: return "NULL"
        case .int64(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return String(reflecting: value)
        case .blob(let value): return "Data(\(value.count) bytes)"
        }
    }

    /// SQLite's comparison of numbers: an integer equals a real of exactly its value.
    public static func == (lhs: DatabaseValue, rhs: DatabaseValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.null, .null): return true
        case (.int64(let l), .int64(let r)): return l == r
        case (.double(let l), .double(let r)): return l == r
        case (.int64(let l), .double(let r)): return Int64(exactly: r) == l
        case (.double(let l), .int64(let r)): return Int64(exactly: l) == r
        case (.string(let l), .string(let r)): return l == r
        case (.blob(let l), .blob(let r)): return l == r
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .null: hasher.combine(0)
        case .int64(let value): hasher.combine(Double(value))  // 1 == 1.0: the same hash
        case .double(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .blob(let value): hasher.combine(value)
        }
    }

    /// Binds the value to parameter `index` (1-based); SQLite copies text and blobs.
    func bind(to statement: SQLiteStatement, at index: CInt) -> CInt {
        switch storage {
        case .null: return sqlite3_bind_null(statement, index)
        case .int64(let value): return sqlite3_bind_int64(statement, index, value)
        case .double(let value): return sqlite3_bind_double(statement, index, value)
        case .string(let value):
            return value.withCString { sqlite3_bind_text(statement, index, $0, CInt(value.utf8.count), packfs_sqlite_transient()) }
        case .blob(let value):
            return value.withUnsafeBytes { Self.bindBlob($0, statement, index, packfs_sqlite_transient()) }
        }
    }

    /// A blob's bytes; an empty one stays an empty blob (a nil address would bind NULL).
    static func bindBlob(
        _ bytes: UnsafeRawBufferPointer, _ statement: SQLiteStatement, _ index: CInt, _ destructor: sqlite3_destructor_type?
    ) -> CInt {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return sqlite3_bind_zeroblob(statement, index, 0) }
        return sqlite3_bind_blob(statement, index, base, CInt(bytes.count), destructor)
    }

    /// Text as SQLite holds it, by its byte count (a NUL inside is kept; invalid UTF-8 is repaired).
    static func text(_ statement: SQLiteStatement, _ index: CInt) -> String {
        guard let start = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// A blob (or text's bytes, converted in place as SQLite does) copied out.
    static func blob(_ statement: SQLiteStatement, _ index: CInt) -> Data {
        guard let start = sqlite3_column_blob(statement, index) else { return Data() }
        return Data(bytes: start, count: Int(sqlite3_column_bytes(statement, index)))
    }
}
