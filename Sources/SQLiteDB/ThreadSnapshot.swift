#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thread's reader connection for the length of `DatabasePool.withThreadSnapshot`: checked
/// out at the thread's first `readWithoutTransaction`, in one read transaction begun then, and
/// given back when the scope ends. The thread finds it through thread-specific data, so the
/// functions that read need no parameter for it. Used by its thread alone.
final class ThreadSnapshot {
    private let readers: ConnectionPool
    private var connection: SerializedConnection?

    private init(_ readers: ConnectionPool) { self.readers = readers }

    /// The connection, in its transaction (checked out and begun on first use).
    func reading() throws -> SerializedConnection {
        if let connection { return connection }
        let taken = try readers.checkOut()
        do {
            try taken.sync { db in try db.beginTransaction(.deferred) }
        } catch {
            readers.checkIn(taken, reusable: false)
            throw error
        }
        connection = taken
        return taken
    }

    /// Ends the transaction and gives the connection back; one whose transaction would not end
    /// is closed rather than handed to the next reader mid-transaction.
    private func end() {
        guard let connection else { return }
        self.connection = nil
        let ended = (try? connection.sync { db -> Bool in
            do { try db.commit() } catch { try? db.rollback() }
            return !db.isInsideTransaction
        }) ?? false
        readers.checkIn(connection, reusable: ended)
    }

    /// The calling thread's snapshot of `readers`, if one is open.
    static func current(for readers: ConnectionPool) -> ThreadSnapshot? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let snapshot = Unmanaged<ThreadSnapshot>.fromOpaque(raw).takeUnretainedValue()
        return snapshot.readers === readers ? snapshot : nil
    }

    /// Runs `body` with a snapshot open on this thread (or the one already open: nested calls
    /// share it), ended when the outermost call returns.
    static func within<T>(_ readers: ConnectionPool, _ body: () throws -> T) rethrows -> T {
        if current(for: readers) != nil { return try body() }
        let snapshot = ThreadSnapshot(readers)
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(snapshot).toOpaque())
        defer {
            pthread_setspecific(key, previous)
            snapshot.end()
        }
        return try body()
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}

extension DatabasePool {
    /// Runs `body` on a reader connection without a transaction of its own: each statement
    /// reads the last commit as it starts, as its own read transaction (SQLite's autocommit
    /// mode), which spares a BEGIN and a COMMIT per call on a path of one or two statements.
    /// Inside `withThreadSnapshot` on the calling thread, `body` runs on that scope's connection
    /// instead, inside its one transaction. `body` must only read, and end what it begins.
    public func readWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        if let snapshot = ThreadSnapshot.current(for: readers) { return try snapshot.reading().sync(body) }
        // Never waits for a connection: a caller may hold one already (inside a `read`).
        return try readers.withConnection(overflowing: true, body)
    }

    /// Runs `body` with the calling thread's `readWithoutTransaction` calls on one connection in
    /// one read transaction: they read one snapshot, and the pool is visited twice however many
    /// they are (nested calls share the outer scope). `read` inside still takes its own
    /// snapshot. A scope whose reads write must not be one: they would not see their own writes.
    public func withThreadSnapshot<T>(_ body: () throws -> T) rethrows -> T {
        try ThreadSnapshot.within(readers, body)
    }

    /// Opens reader connections now, up to `count` (and `maximumReaderCount`), rather than at
    /// first need: a connection keeps reading the file it opened should its path be deleted or
    /// replaced later.
    public func openReaders(_ count: Int) throws {
        try readers.open(upTo: count)
    }
}
