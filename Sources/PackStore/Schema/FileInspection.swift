import Foundation
import GRDB

/// What a file on disk is, found out without writing a byte to it. Opening for real happens only
/// after this says the file is absent, empty, or an offline database PackFS can read.
enum FileInspection: Equatable {
    case absent
    case empty
    case offline(version: Int)

    /// `recovering`: the caller will write (and holds the lock): a hot journal left by a process
    /// that died mid-transaction may be rolled back first, as every SQLite connection that can
    /// write does at open (SQLite's own crash recovery, restoring the last committed state). A
    /// read-only caller gets `.interruptedTransaction` instead.
    static func inspect(path: String, recovering: Bool) throws -> FileInspection {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            return .absent
        }
        if (attributes[.size] as? NSNumber)?.intValue == 0 { return .empty }
        try checkHeader(path: path)
        do {
            return try classify(path: path, readonly: true)
        } catch StoreError.interruptedTransaction where recovering {
            return try classify(path: path, readonly: false)
        }
    }

    private static func classify(path: String, readonly: Bool) throws -> FileInspection {
        var config = Configuration()
        config.readonly = readonly
        // A writer closing the file (a mount switching back to DELETE journal mode) holds its
        // lock for a moment: wait for it rather than call a busy file damaged.
        config.busyMode = .timeout(10)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch {
            throw failure(error, path: path)
        }
        defer { try? queue.close() }
        return try classify(queue, path: path)
    }

    /// A read-only connection that meets a hot journal cannot roll it back: SQLITE_READONLY
    /// (SQLITE_READONLY_ROLLBACK in its extended form) with the journal beside the file.
    private static func failure(_ error: Error, path: String) -> StoreError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_READONLY,
           FileManager.default.fileExists(atPath: path + "-journal") {
            return .interruptedTransaction(path: path)
        }
        return .corrupt(path: path, detail: "\(error)")
    }

    /// SQLite's 16-byte magic string; anything else is not SQLite at all.
    private static func checkHeader(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError.corrupt(path: path, detail: "cannot be read")
        }
        defer { try? handle.close() }
        let magic = handle.readData(ofLength: 16)
        guard magic == Data("SQLite format 3\0".utf8) else { throw StoreError.notSQLite(path: path) }
    }

    private static func classify(_ queue: DatabaseQueue, path: String) throws -> FileInspection {
        let (version, tables): (Int, Set<String>)
        do {
            (version, tables) = try queue.read { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let names = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                return (version, Set(names))
            }
        } catch {
            throw failure(error, path: path)
        }
        if version == 0 && tables.isEmpty { return .empty }
        if version > Schema.version || version == 1 {
            throw StoreError.unsupportedSchemaVersion(path: path, version: version)
        }
        let missing = Schema.tables.filter { !tables.contains($0) }
        guard missing.isEmpty, version >= 2 else {
            throw StoreError.notOfflineDatabase(path: path, missing: missing.isEmpty ? ["user_version"] : missing)
        }
        return .offline(version: version)
    }
}
