import CSQLite
import FoundationEssentials

// The conversions of the standard types, GRDB's: `fromDatabaseValue` is strict (a `Row`'s),
// `fromColumn` takes SQLite's own conversion of a non-NULL column (`fetchOne`, `fetchAll`).

extension Int64: DatabaseValueConvertible {
    @inlinable
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self)) }

    /// An integer, or a real within Int64's range (truncated toward zero).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Int64? {
        switch dbValue.storage {
        case .int64(let value): return value
        case .double(let value): return value >= Double(Int64.min) && value < Double(Int64.max) ? Int64(value) : nil
        default: return nil
        }
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Int64? {
        sqlite3_column_int64(statement, index)
    }
}

extension Int: DatabaseValueConvertible {}

extension Int32: DatabaseValueConvertible {}

/// Int and Int32 go through Int64, and convert only when the value fits. Inlinable: unspecialized, the
/// conversion went through the generic integer protocols at run time (a tile lookup binds five).
extension DatabaseValueConvertible where Self: FixedWidthInteger & SignedInteger {
    @inlinable
    public var databaseValue: DatabaseValue { Int64(self).databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        Int64.fromDatabaseValue(dbValue).flatMap { Self(exactly: $0) }
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Self? {
        Self(exactly: sqlite3_column_int64(statement, index))
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(self)) }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Double? {
        switch dbValue.storage {
        case .int64(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Double? {
        sqlite3_column_double(statement, index)
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { (self ? 1 : 0 as Int64).databaseValue }

    /// A nonzero number is true; text and blobs do not convert (BOOLEAN has numeric affinity).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Bool? {
        Double.fromDatabaseValue(dbValue).map { $0 != 0 }
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Bool? {
        sqlite3_column_int64(statement, index) != 0
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }

    /// Text, or a blob of valid UTF-8 (SQLite's own conversion between the two).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> String? {
        switch dbValue.storage {
        case .string(let value): return value
        case .blob(let data):
            let text = String(decoding: data, as: UTF8.self)
            return text.utf8.elementsEqual(data) ? text : nil
        default: return nil
        }
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> String? {
        DatabaseValue.text(statement, index)
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .blob(self)) }

    /// A blob, or text's UTF-8 bytes.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Data? {
        switch dbValue.storage {
        case .blob(let value): return value
        case .string(let value): return Data(value.utf8)
        default: return nil
        }
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Data? {
        DatabaseValue.blob(statement, index)
    }
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    /// NULL is `.some(nil)`; a value that does not convert is nil (a failure).
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Wrapped?? {
        if let value = Wrapped.fromDatabaseValue(dbValue) { return .some(.some(value)) }
        return dbValue.isNull ? .some(.none) : .none
    }

    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Wrapped?? {
        Wrapped.fromColumn(statement, at: index).map { .some($0) }
    }

    public static func fromMissingColumn() -> Wrapped?? { .some(.none) }
}

/// A type that represents NULL: an optional or a `DatabaseValue`. A `Row`'s subscripts answer only
/// these (NULL also for a missing or unconvertible value), so they never trap.
public protocol DatabaseNullable: DatabaseValueConvertible {
    static var databaseNull: Self { get }
}

extension Optional: DatabaseNullable where Wrapped: DatabaseValueConvertible {
    public static var databaseNull: Wrapped? { nil }
}

extension DatabaseValue: DatabaseNullable {
    public static var databaseNull: DatabaseValue { .null }
}
