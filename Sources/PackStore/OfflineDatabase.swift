import Basics
import FoundationEssentials
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// One offline database file. `.mount` (a mount and the downloads it runs) holds an exclusive lock for its
/// lifetime and runs in WAL mode so readers never wait for the writer; `close()` puts the file back in
/// MapLibre's DELETE journal mode. `.command` (commands that write, `packfs download` included) holds the
/// lock and keeps the file's journal mode. `.readOnly` takes no lock and never writes.
public final class OfflineDatabase: Sendable {
    public enum Mode: Sendable { case readOnly, command, mount }

    public let path: String
    public let mode: Mode
    let writer: any DatabaseWriter
    let generation = CacheGeneration()
    let switchedRowsFlag = SwitchedRowsFlag()
    let packList: PackListCache
    let statuses: PackStatusCache
    /// The last `coverage.geojson` documents, by the runs they were drawn from.
    let coverages = CoverageCache()
    /// The connections of the mount's hot reads (`TreeReads`): the session's pool.
    let readers: StoreReaders
    private let lock: FileLock?
    /// The file the writer opened (nil read-only); writes are refused once it is gone (`FileIdentity`).
    let identity: FileIdentity?
    /// Set by the first `close()`: a second one (or `deinit` after one) does nothing.
    private let closed = LockedState(false)
    /// Set once a write committed with `Counting`'s tables and triggers in the file.
    private let counting = LockedState(false)
    let backgroundCount = BackgroundCount()
    let remover = BackgroundWorker(name: "PackFS remover")

    private init(path: String, mode: Mode, writer: any DatabaseWriter, lock: FileLock?) {
        self.path = path
        self.mode = mode
        self.writer = writer
        self.lock = lock
        readers = StoreReaders(path: path, session: writer as? DatabasePool)
        packList = PackListCache(generation: generation)
        statuses = PackStatusCache(generation: generation)
        identity = lock == nil ? nil : FileIdentity.of(path)
    }

    /// Opens `path`, migrating versions 2-5; refuses anything else without modifying it.
    /// `creating` (not `.readOnly`; only `mount`, `download`, `import`, `reset` pass it): an absent or empty
    /// file becomes a fresh v6 database. `fileMode`: a created file's bits (owner-only by default: docs/design.md §1).
    public static func open(
        path: String, mode: Mode = .command, creating: Bool = true, fileMode: UInt32 = defaultFileMode
    ) throws -> OfflineDatabase {
        if mode == .readOnly {
            switch try FileInspection.inspect(path: path, recovering: false) {
            case .absent: throw StoreError.fileNotFound(path: path)
            case .empty: throw emptyFile(path)
            case .offline: break
            }
            return OfflineDatabase(
                path: path, mode: mode, writer: try opening(path) { try queue(path, readonly: true) }, lock: nil)
        }
        // The lock first: only its holder may roll back what a dead process left (recovering).
        let lock = try FileLock(path: path, creating: creating, fileMode: fileMode)
        do {
            let inspection = try FileInspection.inspect(path: path, recovering: true)
            if !creating, inspection == .empty { throw emptyFile(path) }
            let writer = try opening(path) { try openWriter(path: path, mode: mode, inspection: inspection) }
            return OfflineDatabase(path: path, mode: mode, writer: writer, lock: lock)
        } catch {
            lock.release()
            throw error
        }
    }

    /// The mode of a database file PackFS creates: its owner's alone.
    public static let defaultFileMode: UInt32 = 0o600

    private static func emptyFile(_ path: String) -> StoreError {
        .cannotOpen(path: path, reason: "holds no offline database (it is empty); it was left untouched")
    }

    /// SQLite's failures while opening (a full disk switching to WAL, a read-only disk), naming the file.
    private static func opening<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw storeError(error, path: path)
        }
    }

    private static func openWriter(
        path: String, mode: Mode, inspection: FileInspection
    ) throws -> any DatabaseWriter {
        let setup = try queue(path, readonly: false)
        try setup.writeWithoutTransaction { db in
            switch inspection {
            case .absent, .empty: try Migrations.create(db)
            case .offline(let version): try Migrations.migrate(db, from: version)
            }
            // The lock is ours: drops still pending belong to a mount that died (HandDrops.swift).
            try db.inTransaction {
                try restoreUnsettledDrops(db)
                return .commit
            }
        }
        guard mode == .mount else { return setup }
        try setup.close()
        return try DatabasePool(path: path, configuration: configuration(readonly: false))
    }

    static func configuration(readonly: Bool) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(30)
        config.maximumReaderCount = 16
        config.prepareDatabase { db in
            if !readonly { try db.execute(sql: "PRAGMA synchronous = FULL") }
            // Small page caches: the writer only revisits its B-trees' rightmost pages; a reader has the
            // kernel's page cache, and at SQLite's default a reader per FUSE thread was most of a reading
            // daemon's memory (docs/benchmarks.md).
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -512") }
            if db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -64") }
        }
        return config
    }

    /// A connection for a command or a file's setup; its callers map its errors (`opening`, `wrap`).
    private static func queue(_ path: String, readonly: Bool) throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: configuration(readonly: readonly))
    }

    /// Closes every connection, even if settling fails; a mount first settles its hand drops and puts the
    /// file back in DELETE journal mode, so it is a single self-contained file again.
    public func close() throws {
        guard !closed.withLock({ closed in defer { closed = true }; return closed }) else { return }
        remover.stop()
        stopCounting()
        defer { lock?.release() }
        if mode != .readOnly, fileProblem != nil { return try closeWithoutItsFile() }
        let settled = Result { if mode == .mount { try settleDrops() } }
        readers.close()
        let closed = Result {
            try wrap {
                try writer.close()
                if mode == .mount {
                    let queue = try Self.queue(path, readonly: false)
                    _ = try queue.writeWithoutTransaction { db in
                        try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                    }
                    try queue.close()
                }
            }
        }
        if mode == .mount, FileManager.default.fileExists(atPath: path + "-wal") {
            // SQLite keeps the log when it cannot copy it back (a full disk): nothing is lost, but the
            // file is not one file yet, and the user must know.
            throw StoreError.walLeft(path: path)
        }
        try closed.get()
        try settled.get()
    }

    deinit { try? close() }

    /// The file was deleted or replaced while open: what the writer still sees (log included) is copied to
    /// a new file at the path, or beside it if another file is there now; nothing is written into a file
    /// that is not this database's. Throws `fileGone` saying where the copy is.
    private func closeWithoutItsFile() throws {
        readers.close()
        let target = recoveryPath()
        let staging = target + ".partial-\(UUID().uuidString)"
        let copied = Result {
            // The copy holds what the file held, so it gets the file's mode.
            let created = FileLock.create(staging, lock?.fileMode ?? Self.defaultFileMode)
            if created >= 0 { Glibc.close(created) }
            let copy = try DatabaseQueue(path: staging)
            try writer.backup(to: copy)
            try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()
        }
        // When the path is free, the -wal/-shm beside it are the old file's (SQLite keeps a deleted
        // file's log) and must not meet the copy; beside another file they may be its own.
        try? writer.close()
        if target == path {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        guard case .success = copied, rename(staging, target) == 0 else {
            try? FileManager.default.removeItem(atPath: staging)
            throw StoreError.fileGone("\(path) was deleted or replaced while in use, and what it held could not be saved")
        }
        throw StoreError.fileGone(
            "\(path) was deleted or replaced while in use; what it held was saved to \(target)")
    }

    /// Runs `body` in one write transaction (all of it commits or none). Its rows are stamped `accessed`
    /// now, or at `notBefore` if later (a refresh's rows: PendingRefresh.swift).
    public func write<T>(notBefore: Int64? = nil, _ body: (StoreBatch) throws -> T) throws -> T {
        let now = max(unixNow(), notBefore ?? 0)
        try requireOwnFile()
        return try wrap {
            try writer.write { db in
                try keepCounting(db)
                return try body(StoreBatch(db: db, now: now, statuses: statuses, switchedRows: switchedRowsFlag))
            }
        }
    }

    /// Makes `Counting`'s tables and triggers in the first write, before any row changes, so every change is counted.
    func keepCounting(_ db: Database) throws {
        guard !counting.withLock({ $0 }) else { return }
        try Counting.install(db)
        db.afterNextTransaction(onCommit: { [counting] _ in counting.withLock { $0 = true } })
    }

    /// Runs `body` with a consistent read snapshot (never waits for a writer in a mount).
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        try wrap { try writer.read(body) }
    }

    func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw Self.storeError(error, path: path)
        }
    }

    /// A full disk is said as such (ENOSPC on the mount); any other SQLite failure names the file.
    static func storeError(_ error: DatabaseError, path: String) -> StoreError {
        if error.resultCode == .SQLITE_FULL { return .diskFull(path: path) }
        return .sqlite("\(path): \(error.message ?? error.description)")
    }
}
