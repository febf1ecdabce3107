import CSQLite
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One FUSE request's reads: every raw read the request makes (`TreeReads`, `ExtentReads`) runs
/// on one connection, checked out of the pool on the first read and back when the request ends,
/// inside one read transaction. A request then takes the pool's lock twice however many
/// statements it runs, pays SQLite's file locks (an `fcntl` pair per read transaction, 18% of the
/// daemon's CPU in a `du` before) once, and reads one snapshot throughout, so what it asked first
/// (whether the pack's extents are kept) holds for the rest (`extentsReady` is memoised here).
///
/// The session is the calling thread's for the duration of `OfflineDatabase.withReadSession`
/// (thread-specific data), so the store's functions find it without a parameter; a thread with
/// none reads as before, one statement, one transaction. Used by its thread alone.
final class ReadSession {
    private let pool: ReaderPool
    private var connection: ReadConnection?
    /// `extentsReady` per pack, for this transaction's snapshot.
    var extentsReady: [RegionID: Bool] = [:]

    private static let begin = ReadQuery("BEGIN")
    private static let commit = ReadQuery("COMMIT")

    init(pool: ReaderPool) { self.pool = pool }

    /// The session's connection, in its transaction (checked out and begun on first use).
    func reading() throws -> ReadConnection {
        if let connection { return connection }
        let taken = try pool.checkOut()
        do {
            try taken.each(Self.begin, []) { _ in false }
        } catch {
            pool.checkIn(taken)
            throw error
        }
        connection = taken
        return taken
    }

    /// Ends the transaction and gives the connection back. A connection whose transaction would
    /// not end is dropped rather than handed to the next request mid-transaction.
    func end() {
        guard let connection else { return }
        self.connection = nil
        extentsReady = [:]
        _ = try? connection.each(Self.commit, []) { _ in false }
        if connection.inAutocommit { pool.checkIn(connection) }
    }

    /// The session of the calling thread for `pool`, if one is open.
    static func current(for pool: ReaderPool) -> ReadSession? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let session = Unmanaged<ReadSession>.fromOpaque(raw).takeUnretainedValue()
        return session.pool === pool ? session : nil
    }

    /// Runs `body` with a session open on this thread (or the one already open: nested calls
    /// share it), ended when the outermost call returns.
    static func within<T>(_ pool: ReaderPool, _ body: () throws -> T) rethrows -> T {
        if current(for: pool) != nil { return try body() }
        let session = ReadSession(pool: pool)
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(session).toOpaque())
        defer {
            pthread_setspecific(key, previous)
            session.end()
        }
        return try body()
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}

extension OfflineDatabase {
    /// Runs `body` (one FUSE request that only reads) with its raw reads on one connection in one
    /// read transaction (`ReadSession`). A request that writes must not: its later reads would
    /// not see its own write.
    public func withReadSession<T>(_ body: () throws -> T) rethrows -> T {
        try ReadSession.within(readers, body)
    }
}
