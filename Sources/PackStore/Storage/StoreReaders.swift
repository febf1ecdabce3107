import Basics
import SQLiteDB

/// The reader connections of the store's hot reads: a session's own pool, or in the other modes a
/// read-only pool opened at the first such read (a command may never need one, and a read-only
/// connection cannot open every file a command can, e.g. one in WAL mode without its log).
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

    /// Runs `body`, one statement that only reads, in the scope's snapshot if it has begun, else alone
    /// (`DatabasePool.readAlone`).
    func readAlone<T>(_ body: (Database) throws -> T) throws -> T {
        try wrap { try readers.pool().readAlone(body) }
    }

    /// Runs `body` (one FUSE request that only reads) with its `readWithoutTransaction` reads in one read
    /// transaction, so they agree (a `readAlone` read that comes first runs alone). Not for a request that
    /// writes: its later reads would miss its write.
    public func withOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        try wrap { try readers.pool() }.withThreadSnapshot(body)
    }

    /// Opens the mount's readers early, one per FUSE thread: each keeps reading its file if it is deleted meanwhile.
    public func openReaders(_ count: Int) throws {
        try wrap { try readers.pool().openReaders(count) }
    }
}
