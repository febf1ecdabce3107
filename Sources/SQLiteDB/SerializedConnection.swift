import Basics
import CSQLite
import Synchronization

/// One connection behind a lock: the only way to reach its `Database`. `interrupt()` may come from
/// any thread, at any time, so it takes a lock of its own, which `close()` takes too: SQLite's
/// interrupt is safe on a busy connection, never on a closed one.
final class SerializedConnection: @unchecked Sendable {  // `database` is reached only under `lock`; `interruptible` under `interruptLock`
    // Basics' Lock: a database call from inside another on the same connection deadlocks here
    // (a programmer's mistake; no outside data decides it).
    private let lock = Lock()
    private let database: Database
    private let interruptLock = Lock()
    private var interruptible = true
    private let writes = Atomic<UInt64>(0)

    init(path: String, configuration: Configuration) throws {
        database = try Database(path: path, configuration: configuration)
    }

    /// Runs `body` with the connection, on the calling thread, once no other thread uses it.
    func sync<T>(_ body: (Database) throws -> T) throws -> T {
        try lock.withLock {
            guard database.sqliteConnection != nil else { throw DatabaseError.connectionIsClosed() }
            return try body(database)
        }
    }

    /// As `sync`, unless another thread uses the connection now: then nil at once.
    func syncIfFree<T>(_ body: (Database) throws -> T) throws -> T? {
        try lock.withLockIfAvailable {
            guard database.sqliteConnection != nil else { throw DatabaseError.connectionIsClosed() }
            return try body(database)
        }
    }

    /// `body` with the connection; a transaction it left open is rolled back, and said.
    func syncEndingTransactions<T>(_ body: (Database) throws -> T) throws -> T {
        // Counted once the body and its commit are done: a count read after it sees what it wrote.
        defer { writes.add(1, ordering: .releasing) }
        return try sync { db in
            let result = Result { try body(db) }
            if db.isInsideTransaction {
                try? db.rollback()
                if case .success = result {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a transaction was left open, and rolled back")
                }
            }
            return try result.get()
        }
    }

    /// How many `syncEndingTransactions` calls have ended (`DatabaseWriter.writeCount`).
    var writeCount: UInt64 { writes.load(ordering: .acquiring) }

    /// Stops what the connection is running (SQLITE_INTERRUPT); nothing when it is idle.
    func interrupt() {
        interruptLock.withLock {
            if interruptible { database.interrupt() }
        }
    }

    func close() throws {
        try lock.withLock {
            try interruptLock.withLock {
                try database.close()
                interruptible = false
            }
        }
    }
}
