import CSQLite

/// A Swift type that SQLite values convert to and from.
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }

    /// The value, or nil when `dbValue` does not convert (strict: a `Row`'s conversions).
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?

    /// Column `index` of the current row, known not NULL, read with SQLite's own conversions
    /// (`fetchOne` and `fetchAll`'s, as GRDB's fast path); nil when the result does not fit.
    static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Self?

    /// The value of a column the row does not have: nil (an error) but for optionals.
    static func fromMissingColumn() -> Self?
}

extension DatabaseValueConvertible {
    public static func fromColumn(_ statement: SQLiteStatement, at index: CInt) -> Self? {
        fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: index))
    }

    public static func fromMissingColumn() -> Self? { nil }

    /// The first column of the current row: NULL as `fromDatabaseValue(.null)` has it (nil for a
    /// plain type, `.null` for a `DatabaseValue`), anything else through `fromColumn`.
    static func decodeColumn(_ statement: Statement, at index: CInt) throws -> Self? {
        let handle = statement.sqliteStatement
        if sqlite3_column_type(handle, index) == SQLITE_NULL { return fromDatabaseValue(.null) }
        guard let value = fromColumn(handle, at: index) else {
            throw DatabaseError.mismatch(DatabaseValue(sqliteStatement: handle, index: index), Self.self, "column \(index)", sql: statement.sql)
        }
        return value
    }

    // MARK: Fetching from SQL

    /// The first row's first column; nil when there is no row or the value is NULL.
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> Self? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// Every row's first column; a NULL (or a value that does not convert) throws.
    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Self] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    // MARK: Fetching from a prepared statement

    /// `arguments` nil: the statement's own (`setArguments`).
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Self? {
        try statement.run(arguments) {
            guard try statement.step() else { return nil }
            return try decodeColumn(statement, at: 0)
        }
    }

    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Self] {
        try statement.run(arguments) {
            var values: [Self] = []
            while try statement.step() {
                guard let value = try decodeColumn(statement, at: 0) else {
                    throw DatabaseError.mismatch(.null, Self.self, "column 0", sql: statement.sql)
                }
                values.append(value)
            }
            return values
        }
    }
}

extension DatabaseError {
    /// A value that does not convert to the type asked for.
    static func mismatch(_ value: DatabaseValue, _ type: Any.Type, _ column: String, sql: String? = nil) -> DatabaseError {
        let shown = String(String(describing: value).prefix(80))
        return DatabaseError(resultCode: .SQLITE_MISMATCH, message: "could not decode \(type) from \(shown) at \(column)", sql: sql)
    }
}
