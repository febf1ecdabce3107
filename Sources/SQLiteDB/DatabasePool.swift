import CSQLite
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A WAL database: one writer and up to `maximumReaderCount` readers, which never wait for each other.
public final class DatabasePool: DatabaseWriter {
    private let writer: SerializedConnection
    let readers: ConnectionPool
    /// Each reading thread's own reader, for `readAlone`.
    let threadReaders: ThreadReaders

    /// Opens the writer, sets WAL with `synchronous = NORMAL` and makes sure a non-empty log exists:
    /// read-only connections cannot create one, and would fail to open the file without it.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        // A programmer's mistake only: the count is the caller's constant, never outside data.
        precondition(configuration.maximumReaderCount > 0, "maximumReaderCount must be at least 1")
        writer = try SerializedConnection(path: path, configuration: configuration)
        var readerConfiguration = configuration
        readerConfiguration.readonly = true
        // WAL readers meet a lock only while a connection recovers or checkpoints the log: they wait.
        readerConfiguration.busyMode = .timeout(10)
        let makeReader: @Sendable () throws -> SerializedConnection = { [readerConfiguration] in
            try SerializedConnection(path: path, configuration: readerConfiguration)
        }
        readers = ConnectionPool(maximum: configuration.maximumReaderCount, make: makeReader)
        // A read-only pool's writer writes nothing: another process may, and nothing would end a kept snapshot.
        threadReaders = ThreadReaders(
            maximum: configuration.maximumReaderCount, keepsSnapshots: !configuration.readonly, make: makeReader)
        if !configuration.readonly { try writer.sync { try Self.setUpWAL($0) } }
    }

    private static func setUpWAL(_ db: Database) throws {
        guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
            throw DatabaseError(message: "could not activate WAL Mode at path: \(db.path)")
        }
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
        var status = stat()
        if stat(db.path + "-wal", &status) != 0 || status.st_size == 0 {
            try db.inTransaction {
                try db.execute(sql: "CREATE TABLE sqlitedb_wal_setup (id INTEGER PRIMARY KEY); DROP TABLE sqlitedb_wal_setup")
                return .commit
            }
        }
    }

    /// A read transaction on a reader (the last commit's snapshot); waits when all readers are busy.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try readers.withConnection(overflowing: ThreadSnapshot.current(for: readers) != nil) { db in
            try db.committed(.deferred, body)
        }
    }

    /// From the writer, outside a transaction: takes a reader's snapshot of the writer's last commit,
    /// returns, and runs `value` on it on another thread; the read never sees later writes.
    public func asyncConcurrentRead(_ value: @escaping @Sendable (Result<Database, Error>) -> Void) {
        let reader: SerializedConnection
        do {
            reader = try readers.checkOut()
        } catch {
            value(.failure(error))
            return
        }
        let isolated = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [readers] in
            var reusable = true
            defer { readers.checkIn(reader, reusable: reusable) }
            do {
                try reader.sync { db in
                    defer { reusable = !db.isInsideTransaction }
                    do {
                        // BEGIN DEFERRED takes no snapshot: the first read does.
                        try db.beginTransaction(.deferred)
                        _ = try Int.fetchOne(db, sql: "PRAGMA schema_version")
                    } catch {
                        try? db.rollback()
                        isolated.signal()
                        value(.failure(error))
                        return
                    }
                    isolated.signal()
                    value(.success(db))
                    do { try db.commit() } catch { try? db.rollback() }
                }
            } catch {
                isolated.signal()
                value(.failure(error))
            }
        }
        isolated.wait()
    }

    public func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        threadReaders.writeWillBegin()
        defer { threadReaders.writeDidEnd() }
        return try writer.syncEndingTransactions(body)
    }

    public var writeCount: UInt64 { writer.writeCount }

    /// Interrupts the writer and every reader.
    public func interrupt() {
        writer.interrupt()
        readers.forEach { $0.interrupt() }
        threadReaders.interrupt()
    }

    /// Closes the writer, then (once every read has ended) the readers. A writer that cannot
    /// close leaves everything open.
    public func close() throws {
        try writer.close()
        try readers.close()
        try threadReaders.close()
    }
}
