import Basics

/// One thread's reader connection and read transaction for a `DatabasePool.withThreadSnapshot` scope,
/// begun at its first read. Found through thread-specific data, so readers need no parameter for it.
final class ThreadSnapshot {
    private let readers: ConnectionPool
    /// The connection once the transaction has begun (at the scope's first read), else nil.
    private(set) var connection: SerializedConnection?

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

    /// Ends the transaction and gives the connection back (closed if it would not end: see
    /// `ConnectionPool`).
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
        guard let snapshot = slot.current else { return nil }
        return snapshot.readers === readers ? snapshot : nil
    }

    /// Runs `body` with a snapshot open on this thread (or the one already open: nested calls
    /// share it), ended when the outermost call returns.
    static func within<T>(_ readers: ConnectionPool, _ body: () throws -> T) rethrows -> T {
        if current(for: readers) != nil { return try body() }
        let snapshot = ThreadSnapshot(readers)
        let previous = slot.current
        slot.current = snapshot
        defer {
            slot.current = previous
            snapshot.end()
        }
        return try body()
    }

    private static let slot = ThreadSlot<ThreadSnapshot>()
}

extension DatabasePool {
    /// Runs `body` on a reader without a transaction: each statement reads the last commit (autocommit),
    /// sparing a BEGIN and COMMIT on a path of one or two statements. Inside `withThreadSnapshot`, it
    /// runs in that scope's transaction instead. `body` must only read, and end what it begins.
    public func readWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        if let snapshot = ThreadSnapshot.current(for: readers) { return try snapshot.reading().sync(body) }
        // Never waits for a connection: a caller may hold one already (inside a `read`).
        return try readers.withConnection(overflowing: true, body)
    }

    /// Runs `body`, one statement that only reads, in this thread's snapshot if it has begun, else on the
    /// thread's own reader (`ThreadReaders`: a snapshot that has seen every write this pool's writer ended
    /// before the call), without beginning the scope's. A snapshot begun for it would read what it reads
    /// alone, at the cost of a BEGIN and a COMMIT: a cold tile's lookup, whose pack and layout are kept, reads
    /// only this. A read after it in the same scope begins the snapshot then, which may see a later commit.
    public func readAlone<T>(_ body: (Database) throws -> T) throws -> T {
        if let connection = ThreadSnapshot.current(for: readers)?.connection { return try connection.sync(body) }
        return try threadReaders.read(body) { try readers.withConnection(overflowing: true, body) }
    }

    /// How many threads hold a reader of their own (`readAlone`): each until it ends or the pool closes.
    public var threadReaderCount: Int { threadReaders.count }

    /// Runs `body` with this thread's `readWithoutTransaction` calls in one read transaction: one
    /// snapshot, two pool visits however many calls (nested scopes share it). `read` inside takes its
    /// own. Not for a scope that also writes: its reads would not see its writes.
    public func withThreadSnapshot<T>(_ body: () throws -> T) rethrows -> T {
        try ThreadSnapshot.within(readers, body)
    }

    /// Opens readers now, up to `count`: a connection keeps reading the file it opened should its path
    /// later be deleted or replaced.
    public func openReaders(_ count: Int) throws {
        try readers.open(upTo: count)
    }
}
