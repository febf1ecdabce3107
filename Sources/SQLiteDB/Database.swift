import CSQLite

/// One SQLite connection, used by one thread at a time (see the SQLiteDB header).
public final class Database {
    /// The raw connection, for the C API; nil once closed.
    public private(set) var sqliteConnection: SQLiteConnection?
    public let configuration: Configuration
    let path: String
    /// `cachedStatement`'s statements, by SQL text or by `StatementKey`: the connection's one cache.
    private var statementCache: [StatementCacheKey: Statement] = [:]
    /// The keyed statements used last, newest last, found by identity before the cache is hashed: a
    /// connection serving tiles runs the same few (a tile's row by key and by id, a snapshot's BEGIN and
    /// COMMIT) request after request.
    private var recentKeyed: [(key: StatementKey, statement: Statement)] = []
    /// Transaction state (Database+Transactions.swift).
    var transactionBlocks = 0
    var readOnlyDepth = 0
    var transactionHandlers: [TransactionHandler] = []
    var transactionOutcome: TransactionCompletion?
    var wasInsideTransaction = false

    /// Opens and sets up `path`, reading the schema so that a bad file fails here; closed again on failure.
    init(path: String, configuration: Configuration) throws {
        self.path = path
        self.configuration = configuration
        var handle: SQLiteConnection?
        // SQLite's own VFS. Tried: one reading a row's consecutive overflow pages in one call;
        // fewer preads, no less CPU (docs/benchmarks.md, "Designs measured and set aside").
        let code = sqlite3_open_v2(path, &handle, configuration.openFlags, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code))
        }
        sqliteConnection = handle
        do {
            try setUp(handle)
        } catch {
            closeForcibly()
            throw error
        }
    }

    deinit { closeForcibly() }

    private func setUp(_ handle: SQLiteConnection) throws {
        sqlite3_extended_result_codes(handle, 1)
        if case .timeout(let seconds) = configuration.busyMode {
            sqlite3_busy_timeout(handle, CInt(max(0, min(seconds * 1000, Double(CInt.max)))))
        }
        let code = packfs_sqlite_refuse_double_quoted_strings(handle)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage) }
        if configuration.foreignKeysEnabled { try execute(sql: "PRAGMA foreign_keys = ON") }
        for setup in configuration.setups { try setup(self) }
        // Not a database, or a hot journal a read-only connection may not roll back: fail now.
        _ = try Row.fetchOne(self, sql: "SELECT * FROM sqlite_master LIMIT 1")
    }

    /// Throws SQLITE_BUSY and stays open while `makeStatement`'s statements live; closing twice does nothing.
    func close() throws {
        guard let handle = sqliteConnection else { return }
        statementCache.removeAll()
        recentKeyed.removeAll()
        let code = sqlite3_close(handle)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)))
        }
        sqliteConnection = nil
    }

    /// Closes without failing: with statements still alive, when the last one is finalized.
    private func closeForcibly() {
        guard let handle = sqliteConnection else { return }
        statementCache.removeAll()
        recentKeyed.removeAll()
        sqlite3_close_v2(handle)
        sqliteConnection = nil
    }

    func interrupt() {
        if let sqliteConnection { sqlite3_interrupt(sqliteConnection) }
    }

    // MARK: Statements

    /// Runs `sql`, which may hold several statements separated by semicolons; each takes as many
    /// of `arguments` as it has parameters, in order, and all of them must be used.
    public func execute(sql: String, arguments: StatementArguments = StatementArguments()) throws {
        let handle = try connection()
        var remaining = arguments.values[...]
        let text = sql.utf8CString
        try text.withUnsafeBufferPointer { buffer in
            guard var start = buffer.baseAddress else { return }
            let end = start + buffer.count
            while start < end, start.pointee != 0 {
                var tail: UnsafePointer<CChar>?
                var prepared: SQLiteStatement?
                let code = sqlite3_prepare_v3(handle, start, CInt(end - start), 0, &prepared, &tail)
                guard code == SQLITE_OK else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage, sql: String(cString: start))
                }
                guard let tail, tail > start else { return }
                start = tail
                guard let prepared else { continue }  // white space or a comment
                let statement = Statement(database: self, handle: prepared)
                guard remaining.count >= statement.parameterCount else {
                    throw DatabaseError(
                        resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.count)", sql: statement.sql)
                }
                let own = remaining.prefix(statement.parameterCount)
                remaining = remaining.dropFirst(statement.parameterCount)
                try statement.execute(arguments: own.isEmpty ? nil : StatementArguments(values: Array(own)))
            }
        }
        guard remaining.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.count)", sql: sql)
        }
    }

    /// One new statement; `sql` must hold exactly one.
    public func makeStatement(sql: String) throws -> Statement {
        try makeStatement(sql: sql, flags: 0)
    }

    /// The connection's statement for `sql`, prepared once and kept. Each use resets it: do not hold
    /// one across another use of the same text.
    public func cachedStatement(sql: String) throws -> Statement {
        try cachedStatement(.text(sql), sql: sql)
    }

    /// As `cachedStatement(sql:)`, found by the key's identity: a hot path hashes no SQL text.
    public func cachedStatement(_ key: StatementKey) throws -> Statement {
        for entry in recentKeyed where entry.key === key { return entry.statement }
        let statement = try cachedStatement(.key(key), sql: key.sql)
        if recentKeyed.count >= 4 { recentKeyed.removeFirst() }
        recentKeyed.append((key, statement))
        return statement
    }

    private func cachedStatement(_ cacheKey: StatementCacheKey, sql: String) throws -> Statement {
        if let statement = statementCache[cacheKey] { return statement }
        let statement = try makeStatement(sql: sql, flags: UInt32(SQLITE_PREPARE_PERSISTENT))
        statement.cacheKey = cacheKey
        statementCache[cacheKey] = statement
        return statement
    }

    private func makeStatement(sql: String, flags: UInt32) throws -> Statement {
        let handle = try connection()
        return try sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            var prepared: SQLiteStatement?
            let code = sqlite3_prepare_v3(handle, start, -1, flags, &prepared, &tail)
            guard code == SQLITE_OK else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage, sql: sql)
            }
            guard let prepared else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "empty statement", sql: sql) }
            let statement = Statement(database: self, handle: prepared)
            if let tail, try Self.holdsStatement(handle, tail) {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "Multiple statements found. To execute multiple statements, use Database.execute(sql:) instead.",
                    sql: sql)
            }
            return statement
        }
    }

    /// Whether `text` holds more than white space, comments and semicolons (or does not compile).
    private static func holdsStatement(_ handle: SQLiteConnection, _ text: UnsafePointer<CChar>) throws -> Bool {
        var cursor = text
        while cursor.pointee == 32 || cursor.pointee == 59 || (cursor.pointee >= 9 && cursor.pointee <= 13) { cursor += 1 }
        guard cursor.pointee != 0 else { return false }
        var prepared: SQLiteStatement?
        let code = sqlite3_prepare_v3(handle, cursor, -1, 0, &prepared, nil)
        sqlite3_finalize(prepared)
        return code != SQLITE_OK || prepared != nil
    }

    // MARK: Information

    /// Rows changed by the last INSERT, UPDATE or DELETE (`sqlite3_changes`).
    public var changesCount: Int { sqliteConnection.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// The row id of the last successful INSERT.
    public var lastInsertedRowID: Int64 { sqliteConnection.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Whether a table (not a view) of any schema has this name, case-insensitively. Asked of SQLite's
    /// in-memory schema, since a batch asks once per tile; reading `sqlite_master` would recheck the file.
    public func tableExists(_ name: String) throws -> Bool {
        let handle = try connection()
        try cachedStatement(sql: "SELECT 1 FROM sqlite_master LIMIT 0").execute()
        let code = sqlite3_table_column_metadata(handle, nil, name, nil, nil, nil, nil, nil, nil)
        if code == SQLITE_OK { return true }
        if code == SQLITE_ERROR { return false }  // no such table
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage)
    }

    var lastErrorMessage: String? {
        sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
    }

    func connection() throws -> SQLiteConnection {
        guard let sqliteConnection else { throw DatabaseError.connectionIsClosed() }
        return sqliteConnection
    }

    // MARK: Execution bookkeeping (Statement)

    func willExecute(_ statement: Statement) throws {
        try checkForAbortedTransaction(sql: statement.sql)
    }

    /// A statement failed: SQLite's message and SQL; a cached statement leaves the cache.
    func statementDidFail(_ statement: Statement, code: CInt) -> DatabaseError {
        let error = DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage, sql: statement.sql)
        if let key = statement.cacheKey, statementCache[key] === statement {
            statementCache.removeValue(forKey: key)
            recentKeyed.removeAll { $0.statement === statement }
            statement.cacheKey = nil
        }
        return error
    }
}

// A connection belongs to one thread at a time: its queue or pool hands it out.
@available(*, unavailable)
extension Database: Sendable {}
