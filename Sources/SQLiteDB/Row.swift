import CSQLite

/// One result row: column names and a copy of its values, found by index or by name (case-insensitive,
/// leftmost wins). Subscripts never trap (see `DatabaseNullable`); `decode` throws and says why.
public struct Row: Equatable, Sendable, CustomStringConvertible {
    public let columnNames: [String]
    public let databaseValues: [DatabaseValue]

    /// The row `statement` is on.
    init(_ statement: Statement) {
        columnNames = statement.columnNames
        let handle = statement.sqliteStatement
        databaseValues = (0..<CInt(columnNames.count)).map { DatabaseValue(sqliteStatement: handle, index: $0) }
    }

    /// The index of the leftmost column named `name` (ASCII case-insensitively, as SQLite names).
    func index(forColumn name: String) -> Int? {
        if let exact = columnNames.firstIndex(of: name) { return exact }
        return columnNames.firstIndex { Self.sameName($0, name) }
    }

    // MARK: Subscripts (never trap)

    /// The value at `index`: nil (or `.null`) when NULL, past the last column or not convertible.
    public subscript<Value: DatabaseNullable>(_ index: Int) -> Value {
        guard databaseValues.indices.contains(index) else { return .databaseNull }
        return Value.fromDatabaseValue(databaseValues[index]) ?? .databaseNull
    }

    /// The value of column `name`, as the index subscript; a missing column is nil (or `.null`).
    public subscript<Value: DatabaseNullable>(_ name: String) -> Value {
        index(forColumn: name).map { self[$0] } ?? .databaseNull
    }

    // MARK: Decoding (throws)

    /// The value at `index`, or a `DatabaseError` (SQLITE_MISMATCH) naming it. An optional reads NULL as nil.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, atIndex index: Int) throws -> Value {
        guard databaseValues.indices.contains(index) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no column at index \(index) in a row of \(databaseValues.count)")
        }
        return try convert(databaseValues[index], "column \(index)")
    }

    /// As the index `decode`; a missing column is nil for an optional, an error otherwise.
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, forColumn name: String) throws -> Value {
        guard let index = index(forColumn: name) else {
            if let missing = Value.fromMissingColumn() { return missing }
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "no column \(name) in a row of \(columnNames)")
        }
        return try convert(databaseValues[index], "column \(name)")
    }

    private func convert<Value: DatabaseValueConvertible>(_ value: DatabaseValue, _ column: String) throws -> Value {
        guard let converted = Value.fromDatabaseValue(value) else { throw DatabaseError.mismatch(value, Value.self, column) }
        return converted
    }

    /// `[id:1 name:"x"]`, as GRDB shows a row.
    public var description: String {
        "[" + zip(columnNames, databaseValues).map { "\($0):\($1)" }.joined(separator: " ") + "]"
    }

    private static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }
}

// MARK: Fetching

extension Row {
    /// The first row; nil when there is none.
    public static func fetchOne(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try fetchOne(db.makeStatement(sql: sql), arguments: arguments)
    }

    public static func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try fetchAll(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// The rows one at a time, stepped as `next()` is called: for results too large to hold.
    public static func fetchCursor(
        _ db: Database, sql: String, arguments: StatementArguments = StatementArguments()
    ) throws -> RowCursor {
        try RowCursor(db.makeStatement(sql: sql), arguments: arguments)
    }

    /// `arguments` nil: the statement's own (`setArguments`).
    public static func fetchOne(_ statement: Statement, arguments: StatementArguments? = nil) throws -> Row? {
        try statement.run(arguments) { try statement.step() ? Row(statement) : nil }
    }

    public static func fetchAll(_ statement: Statement, arguments: StatementArguments? = nil) throws -> [Row] {
        try statement.run(arguments) {
            var rows: [Row] = []
            while try statement.step() { rows.append(Row(statement)) }
            return rows
        }
    }
}
