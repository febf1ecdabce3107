import Basics
import FoundationEssentials

/// Raw read-only connections (`ReadConnection`), one per concurrent reader, kept open with their
/// prepared statements. A FUSE thread takes one, runs its statement and gives it back; at most
/// `maxIdle` wait between uses (the mount's thread limit), any more are closed when returned.
final class ReaderPool: @unchecked Sendable {  // `idle` (SQLite handles) and `closed` are guarded by `lock`
    let path: String
    let maxIdle: Int
    private let lock = Lock()
    private var idle: [ReadConnection] = []
    private var closed = false

    init(path: String, maxIdle: Int = 16) {
        self.path = path
        self.maxIdle = maxIdle
    }

    /// Runs `body` on a connection of its own for the duration: the calling thread's
    /// `ReadSession`'s when one is open (no lock: the session checked it out once), else one
    /// checked out for the call.
    func withConnection<T>(_ body: (ReadConnection) throws -> T) throws -> T {
        if let session = ReadSession.current(for: self) { return try body(try session.reading()) }
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Opens `count` connections ahead of need: a mount's readers then keep reading the file
    /// they opened if it is deleted under them (a connection opened later finds nothing there).
    func warm(_ count: Int) throws {
        let opened = try (0..<min(count, maxIdle)).map { _ in try ReadConnection(path: path) }
        lock.withLock { idle.append(contentsOf: opened) }
    }

    /// Closes the idle connections and refuses new ones: the session's `close()` must be the
    /// file's last user to take it out of WAL mode.
    func close() {
        lock.withLock {
            closed = true
            idle = []
        }
    }

    func checkOut() throws -> ReadConnection {
        LockTally.note(lock)
        let (reused, isClosed) = lock.withLock { (idle.popLast(), closed) }
        if isClosed { throw StoreError.sqlite("\(path): the database is closed") }
        return try reused ?? ReadConnection(path: path)
    }

    func checkIn(_ connection: ReadConnection) {
        LockTally.note(lock)
        lock.withLock {
            guard !closed, idle.count < maxIdle else { return }
            idle.append(connection)
        }
    }
}
