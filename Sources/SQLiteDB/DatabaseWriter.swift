import CSQLite

/// What reads a database: a `DatabaseQueue` or a `DatabasePool`.
public protocol DatabaseReader: AnyObject, Sendable {
    /// Runs `body` in a read-only transaction: one consistent snapshot, no write possible.
    func read<T>(_ body: (Database) throws -> T) throws -> T

    /// Stops the statements running on the connections (they fail with SQLITE_INTERRUPT).
    func interrupt()

    /// Closes the connections; later uses throw "Connection is closed".
    func close() throws
}

/// What writes a database.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `body` with the writer connection, outside any transaction (PRAGMAs that refuse one,
    /// ATTACH, transactions of its own). A transaction it leaves open is rolled back, and fails.
    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T

    /// How many `writeWithoutTransaction` calls (and so writes) have ended, counted after their commit:
    /// a value read, then read again unchanged, means this writer changed nothing in between.
    var writeCount: UInt64 { get }
}

extension DatabaseWriter {
    /// Runs `body` in one IMMEDIATE transaction, rolled back when it throws.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.committed(nil, body) }
    }
}

extension DatabaseReader {
    /// Copies this database's snapshot over `writer`'s (SQLite's online backup, in one step).
    public func backup(to writer: some DatabaseWriter) throws {
        try writer.writeWithoutTransaction { destination in
            try read { source in try source.backup(to: destination) }
        }
    }
}

extension Database {
    /// Copies this connection's main database over `destination`'s.
    func backup(to destination: Database) throws {
        let target = try destination.connection()
        guard let backup = sqlite3_backup_init(target, "main", try connection(), "main") else {
            throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_errcode(target)), message: destination.lastErrorMessage)
        }
        let code = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: destination.lastErrorMessage)
        }
        guard finish == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: finish), message: destination.lastErrorMessage)
        }
    }
}
