/// One connection, used by one thread at a time: `read`, `write` and the rest wait for each other.
public final class DatabaseQueue: DatabaseWriter {
    private let connection: SerializedConnection

    /// Opens (or, unless read-only, creates) the database at `path`.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        connection = try SerializedConnection(path: path, configuration: configuration)
    }

    /// A read-only transaction (DEFERRED, under `PRAGMA query_only` unless the connection is
    /// read-only already): writes in `body` fail with SQLITE_READONLY.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try connection.sync { db in
            try db.readOnly { try db.committed(.deferred, body) }
        }
    }

    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try connection.syncEndingTransactions(body)
    }

    public var writeCount: UInt64 { connection.writeCount }

    public func interrupt() { connection.interrupt() }

    public func close() throws { try connection.close() }
}
