import Basics
import SQLiteDB

/// The reader connections of the store's hot reads (`readWithoutTransaction`, `withOneSnapshot`):
/// a session's own pool, the one pool on the file. In the other modes, a read-only pool opened at
/// the first such read: a command may never read the tree, and a read-only connection cannot
/// open every file a command can (one in WAL mode without its log).
final class StoreReaders: Sendable {
    private enum State {
        case unopened
        case open(DatabasePool)
        case closed
    }

    private let path: String
    /// The session's pool (its writer's): read without a lock.
    private let session: DatabasePool?
    private let state = LockedState(State.unopened)

    init(path: String, session: DatabasePool?) {
        self.path = path
        self.session = session
    }

    func pool() throws -> DatabasePool {
        if let session { return session }
        return try state.withLock { state in
            switch state {
            case .open(let pool): return pool
            case .closed: throw StoreError.sqlite("\(path): the database is closed")
            case .unopened:
                let pool = try DatabasePool(path: path, configuration: OfflineDatabase.configuration(readonly: true))
                state = .open(pool)
                return pool
            }
        }
    }

    /// Closes a pool of their own (a session's closes with its writer) and opens no other.
    func close() {
        let opened = state.withLock { state -> DatabasePool? in
            defer { state = .closed }
            if case .open(let pool) = state { return pool }
            return nil
        }
        try? opened?.close()
    }
}

extension OfflineDatabase {
    /// Runs `body`, which only reads, on a reader connection without a transaction of its own:
    /// each statement reads the last commit (inside `withOneSnapshot`, the scope's snapshot).
    func readWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try wrap { try readers.pool().readWithoutTransaction(body) }
    }

    /// Runs `body` (one FUSE request that only reads) with its reads through
    /// `readWithoutTransaction` on one connection in one read transaction: they agree with each
    /// other, and the pool is visited once. A request that writes must not: its later reads would
    /// not see its own write.
    public func withOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        try wrap { try readers.pool() }.withThreadSnapshot(body)
    }

    /// Opens the mount's read connections ahead of need (one per FUSE thread): they keep reading
    /// the file they opened should it be deleted while mounted.
    public func openReaders(_ count: Int) throws {
        try wrap { try readers.pool().openReaders(count) }
    }
}
