import Basics
import Synchronization

/// A pool's thread readers (`DatabasePool.readAlone`): each thread that reads alone gets a reader connection
/// of its own, outside the pool, made at its first such read and closed at its exit or with the pool; up to
/// `maximum` at once (later threads read from the pool). A cold tile's lookup then visits no pool, and its
/// reader keeps one read transaction open from one lookup to the next while the pool's writer begins no write:
/// in WAL mode beginning and ending one costs the shared memory's locks and checks, about 1,500 instructions
/// and, on a host whose caches a tile's inflate empties, some 80 lines of code fetched again a tile.
///
/// A snapshot is kept only if it began while no write ran, and never past the start of the next write: the
/// writer ends the idle readers' snapshots before it begins (`writeWillBegin`), and a reader whose read
/// overlapped that start ends its own when the read returns. So every read sees each write that ended before
/// it, and at a write's commit no kept snapshot holds back the log's checkpoint (a reader that keeps one across
/// writes would stop the log from ever starting over while reads go on). Kept only where the pool's writer is
/// the file's only one (`keepsSnapshots`): another process's writes would not end them.
final class ThreadReaders: Sendable {
    struct Roster {
        var readers: [ThreadReader] = []
        var closed = false
    }

    private let roster = LockedState(Roster())
    /// Each thread's `ThreadReader`, retired at the thread's exit.
    private let perThread = OwnedThreadSlot<ThreadReader>()
    private let maximum: Int
    private let make: @Sendable () throws -> SerializedConnection
    private let keepsSnapshots: Bool
    /// The pool's writes begun and ended: equal while none runs.
    private let writesBegun = Atomic<UInt64>(0)
    private let writesEnded = Atomic<UInt64>(0)

    init(maximum: Int, keepsSnapshots: Bool, make: @escaping @Sendable () throws -> SerializedConnection) {
        self.maximum = maximum
        self.keepsSnapshots = keepsSnapshots
        self.make = make
    }

    deinit {
        try? close()
    }

    /// `body` on the calling thread's reader, in a snapshot that has seen every write that ended before the call;
    /// `otherwise` when the thread has no reader and can have none. (No `T?` here: the metadata of an optional of
    /// a type from another module is looked up at run time, on every call.)
    func read<T>(_ body: (Database) throws -> T, otherwise: () throws -> T) throws -> T {
        guard let reader = current() else { return try otherwise() }
        // Ended first: equal to the begun count read after it, no write ran when that was read.
        let ended = writesEnded.load(ordering: .sequentiallyConsistent)
        let begun = writesBegun.load(ordering: .sequentiallyConsistent)
        let keep = keepsSnapshots && begun == ended ? begun : nil
        // A write that began while this read held the connection could not end its snapshot (`writeWillBegin`).
        defer { if keep != nil, writesBegun.load(ordering: .sequentiallyConsistent) != keep { reader.endSnapshot() } }
        do {
            return try reader.read(keeping: keep, body)
        } catch is ThreadReader.Stuck {
            release(reader)
            return try otherwise()
        }
    }

    /// The pool's writer is about to begin a write: the snapshots of the readers no thread is using end now (the
    /// others end when their read returns), and none begun from now on is kept until the write has ended.
    func writeWillBegin() {
        writesBegun.add(1, ordering: .sequentiallyConsistent)
        roster.withLock { roster in
            for reader in roster.readers { reader.endSnapshot() }
        }
    }

    func writeDidEnd() {
        writesEnded.add(1, ordering: .sequentiallyConsistent)
    }

    func interrupt() {
        roster.withLock { roster in
            for reader in roster.readers { reader.connection.interrupt() }
        }
    }

    /// Closes every reader (a read running now first ends); no thread gets one from now on.
    func close() throws {
        let readers = roster.withLock { roster in
            roster.closed = true
            defer { roster.readers = [] }
            return roster.readers
        }
        var failure: Error?
        for reader in readers {
            do { try reader.connection.close() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// How many threads hold a reader.
    var count: Int { roster.withLock { $0.readers.count } }

    /// The calling thread's reader, made at its first call; nil when closed, `maximum` are out or the file
    /// does not open.
    private func current() -> ThreadReader? {
        if let reader = perThread.current { return reader }
        guard perThread.isUsable, roster.withLock({ !$0.closed && $0.readers.count < maximum }), let connection = try? make() else { return nil }
        let reader = ThreadReader(connection, roster: roster)
        let kept = roster.withLock { roster -> Bool in
            guard !roster.closed, roster.readers.count < maximum else { return false }
            roster.readers.append(reader)
            return true
        }
        guard kept, perThread.set(reader) else {
            reader.retire()
            return nil
        }
        return reader
    }

    /// Closes the calling thread's reader and forgets it: the thread makes another at its next read.
    private func release(_ reader: ThreadReader) {
        perThread.set(nil)
        reader.retire()
    }
}

/// One thread's reader connection (`ThreadReaders`) and the read transaction it keeps open.
final class ThreadReader: ThreadExiting, @unchecked Sendable {  // `began` is reached only inside `connection`'s lock
    let connection: SerializedConnection
    private let roster: LockedState<ThreadReaders.Roster>
    /// The count of begun writes (`ThreadReaders`) when the kept read transaction began; nil when none is kept.
    private var began: UInt64?

    /// The transaction would not end: the connection is dropped rather than read in an old snapshot.
    struct Stuck: Error {}

    init(_ connection: SerializedConnection, roster: LockedState<ThreadReaders.Roster>) {
        self.connection = connection
        self.roster = roster
    }

    /// `body` in the kept snapshot if it began at the count `keep`, else in a new one kept under it (`keep` nil:
    /// none, the statement reads alone).
    func read<T>(keeping keep: UInt64?, _ body: (Database) throws -> T) throws -> T {
        try connection.sync { db in
            if began != keep || !db.isInsideTransaction { try end(db) }
            if let keep, began == nil {
                try db.beginTransaction(.deferred)
                began = keep
            }
            do {
                return try body(db)
            } catch {
                try? end(db)
                throw error
            }
        }
    }

    /// Ends the kept snapshot, unless another thread uses the connection now.
    func endSnapshot() {
        _ = try? connection.syncIfFree { db in
            if began != nil { try end(db) }
        }
    }

    private func end(_ db: Database) throws {
        began = nil
        guard db.isInsideTransaction else { return }
        do { try db.commit() } catch { try? db.rollback() }
        if db.isInsideTransaction { throw Stuck() }
    }

    func threadDidExit() { retire() }

    /// Leaves the roster and closes (its thread has ended, or it is dropped).
    func retire() {
        roster.withLock { $0.readers.removeAll { $0 === self } }
        try? connection.close()
    }
}
