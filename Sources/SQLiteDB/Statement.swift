import CSQLite
import FoundationEssentials

/// One prepared statement, reset again when each execution ends so that no read outlives a fetch.
public final class Statement {
    /// The raw statement, for the C API (`sqlite3_step`, `sqlite3_column_*`).
    public let sqliteStatement: SQLiteStatement
    unowned let database: Database
    /// The `?` parameters (SQLite's count: the highest index).
    let parameterCount: Int
    /// Set when the statement sits in the database's statement cache under this key.
    var cacheKey: StatementCacheKey?
    /// The last arguments given; temporary bindings unbind them, and the next run given none rebinds them.
    private var arguments = StatementArguments()
    private var argumentsBound: Bool
    private var names: [String]?

    /// Arguments up to this count are bound without copying text and blobs, for one execution.
    private static let temporaryBindingLimit = 20

    init(database: Database, handle: SQLiteStatement) {
        sqliteStatement = handle
        self.database = database
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
        argumentsBound = parameterCount == 0
    }

    deinit { sqlite3_finalize(sqliteStatement) }

    /// The SQL text, trimmed of surrounding white space and semicolons.
    public var sql: String { DatabaseError.trimmed(String(cString: sqlite3_sql(sqliteStatement))) }

    var columnNames: [String] {
        if let names { return names }
        let made = (0..<sqlite3_column_count(sqliteStatement)).map { sqlite3_column_name(sqliteStatement, $0).map { String(cString: $0) } ?? "" }
        names = made
        return made
    }

    /// Binds `arguments` (SQLite copies text and blobs) for the executions that pass none.
    public func setArguments(_ arguments: StatementArguments) throws {
        try validate(arguments)
        sqlite3_reset(sqliteStatement)
        try bindCopying(arguments.values)
        self.arguments = arguments
        argumentsBound = true
    }

    /// Runs the statement to its end; `arguments` nil: those of `setArguments` (or none).
    public func execute(arguments: StatementArguments? = nil) throws {
        try run(arguments) {
            while try step() {}
        }
    }

    /// Resets, binds `newArguments` (or those set before), runs `body` (which steps), resets again.
    @usableFromInline
    func run<T>(_ newArguments: StatementArguments?, _ body: () throws -> T) throws -> T {
        if let newArguments {
            try validate(newArguments)
            arguments = newArguments
            argumentsBound = false
        } else if !argumentsBound {
            try validate(arguments)
        }
        sqlite3_reset(sqliteStatement)
        defer { database.statementDidEnd() }
        try database.willExecute(self)
        if argumentsBound || parameterCount == 0 {
            defer { sqlite3_reset(sqliteStatement) }
            return try body()
        }
        if arguments.count > Self.temporaryBindingLimit {
            try bindCopying(arguments.values)
            argumentsBound = true
            defer { sqlite3_reset(sqliteStatement) }
            return try body()
        }
        defer { sqlite3_clear_bindings(sqliteStatement) }
        return try bindTemporarily(arguments.values[...], at: 1) {
            // Reset while the bound bytes are still valid: SQLite reads them until then.
            defer { sqlite3_reset(sqliteStatement) }
            return try body()
        }
    }

    /// As `firstRow(arguments:)`, with the parameters set by `bind` on the SQLite statement itself (numbers, and text
    /// SQLite copies), for the statement every cold tile's lookup runs: no array of values is built and destroyed, no
    /// nested call holds a text's bytes. `bind` returns SQLite's first failing code, or SQLITE_OK. The arguments
    /// `setArguments` gave are bound again by the next run given none.
    /// Inlinable (its two halves are not), so that a caller's `T` is specialized: unspecialized, `T?` is a value
    /// witness call on every return.
    @inlinable
    public func firstRow<T>(binding bind: (SQLiteStatement) -> CInt, _ value: (StatementRow) throws -> T) throws -> T? {
        defer { endBoundRun() }
        try beginBoundRun(bind)
        return try step() ? try value(StatementRow(sqliteStatement)) : nil
    }

    /// `firstRow(binding:)`'s start: reset, the run's checks, the parameters bound.
    @usableFromInline
    func beginBoundRun(_ bind: (SQLiteStatement) -> CInt) throws {
        sqlite3_reset(sqliteStatement)
        argumentsBound = parameterCount == 0
        try database.willExecute(self)
        try check(bind(sqliteStatement))
    }

    /// `firstRow(binding:)`'s end, whether or not it began: reset, nothing left bound.
    @usableFromInline
    func endBoundRun() {
        sqlite3_reset(sqliteStatement)
        sqlite3_clear_bindings(sqliteStatement)
        database.statementDidEnd()
    }

    /// One step: true on a row, false at the end; an SQLite failure throws.
    @usableFromInline
    func step() throws -> Bool {
        let code = sqlite3_step(sqliteStatement)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw database.statementDidFail(self, code: code)
    }

    private func validate(_ arguments: StatementArguments) throws {
        guard arguments.count == parameterCount else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.count)", sql: sql)
        }
    }

    private func bindCopying(_ values: [DatabaseValue]) throws {
        for (offset, value) in values.enumerated() {
            try check(value.bind(to: sqliteStatement, at: CInt(offset + 1)))
        }
    }

    /// Binds without copying text and blobs, valid while `body` runs: SQLite copies no stored tile. Numbers
    /// bind in a loop; only a text or blob nests a call, to keep its bytes in place until `body` ends.
    private func bindTemporarily<T>(_ values: ArraySlice<DatabaseValue>, at first: CInt, _ body: () throws -> T) throws -> T {
        var index = first
        for position in values.indices {
            let value = values[position]
            switch value.storage {
            case .string(let text):
                return try text.withCString { pointer in
                    try check(sqlite3_bind_text(sqliteStatement, index, pointer, CInt(text.utf8.count), packfs_sqlite_static()))
                    return try bindTemporarily(values[(position + 1)...], at: index + 1, body)
                }
            case .blob(let data):
                return try data.withUnsafeBytes { bytes in
                    try check(DatabaseValue.bindBlob(bytes, sqliteStatement, index, packfs_sqlite_static()))
                    return try bindTemporarily(values[(position + 1)...], at: index + 1, body)
                }
            default:
                try check(value.bind(to: sqliteStatement, at: index))
                index += 1
            }
        }
        return try body()
    }

    /// A binding's result: a text or blob beyond SQLite's limit fails here (SQLITE_TOOBIG).
    private func check(_ code: CInt) throws {
        guard code != SQLITE_OK else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: database.lastErrorMessage, sql: sql)
    }
}

// A statement belongs to its connection's thread.
@available(*, unavailable)
extension Statement: Sendable {}
