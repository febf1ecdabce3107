import FoundationEssentials
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// What a file on disk is, found out without writing a byte to it. Opening for real happens only
/// after this says the file is absent, empty, or an offline database PackFS can read.
enum FileInspection: Equatable {
    case absent
    case empty
    case offline(version: Int)

    /// `recovering`: the caller will write and holds the lock, so a hot journal left by a dead process
    /// may be rolled back first (SQLite's own crash recovery); a read-only caller gets
    /// `.interruptedTransaction` instead.
    static func inspect(path: String, recovering: Bool) throws -> FileInspection {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return .absent }
            throw StoreError.cannotOpen(path: path, reason: reason(errno))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw StoreError.cannotOpen(
                path: path, reason: status.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "not a regular file")
        }
        if status.st_size == 0 { return .empty }
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

    /// A read-only connection cannot roll back a hot journal: SQLITE_READONLY with a `-journal` beside the file.
    private static func failure(_ error: Error, path: String) -> StoreError {
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_READONLY,
           FileManager.default.fileExists(atPath: path + "-journal") {
            return .interruptedTransaction(path: path)
        }
        return .corrupt(path: path, detail: "\(error)")
    }

    /// SQLite's 16-byte magic string, then the header's page size and count against the file's size:
    /// SQLite reads past the end of a cut file as zeros, so a file cut after its schema would open and a
    /// mount would write to it before any read failed.
    private static func checkHeader(path: String) throws {
        let header = try readHeader(path)
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else { throw StoreError.notSQLite(path: path) }
        guard header.count == 100 else {
            throw StoreError.corrupt(path: path, detail: "\(header.count) bytes, shorter than an SQLite header")
        }
        // A hot journal or WAL beside the file holds pages the file lacks: its size says nothing then.
        let companions = ["-journal", "-wal"].filter { FileManager.default.fileExists(atPath: path + $0) }
        var status = stat()
        let size = stat(path, &status) == 0 ? Int64(status.st_size) : 0
        if companions.isEmpty, let detail = SQLiteHeader(header).problem(fileSize: size) {
            throw StoreError.corrupt(path: path, detail: detail)
        }
    }

    /// The file's first 100 bytes (fewer if it is shorter), read with POSIX calls: Foundation's
    /// `FileHandle.readData(ofLength:)` traps on a read error (EISDIR, EIO).
    private static func readHeader(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.cannotOpen(path: path, reason: reason(errno)) }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        var count = 0
        while count < header.count {
            let read = header.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + count, buffer.count - count)
            }
            if read == 0 { break }
            if read < 0 {
                if errno == EINTR { continue }
                throw StoreError.cannotOpen(path: path, reason: reason(errno))
            }
            count += read
        }
        return Array(header.prefix(count))
    }

    /// The words for an errno in a message ("is a directory", "permission denied").
    static func reason(_ code: Int32) -> String {
        switch code {
        case EISDIR: return "is a directory"
        case ENOTDIR: return "a part of the path is not a directory"
        default: return String(cString: strerror(code)).lowercased()
        }
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

/// The fields of SQLite's 100-byte database header that say how long the file must be
/// (https://www.sqlite.org/fileformat.html, section 1.3).
struct SQLiteHeader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func uint32(at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A power of two from 512 to 65536 (stored as 1); nil for anything else.
    var pageSize: Int? {
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        let size = raw == 1 ? 65536 : raw
        return size >= 512 && size & (size - 1) == 0 ? size : nil
    }

    /// The page count, when the header's own rule says it is current: not zero, and written by
    /// the same change as the version-valid-for number (older writers left it stale).
    var pageCount: Int? {
        let count = uint32(at: 28)
        return count > 0 && uint32(at: 24) == uint32(at: 92) ? Int(count) : nil
    }

    /// Why a file of `fileSize` bytes cannot hold the database this header describes; nil if it can.
    func problem(fileSize: Int64) -> String? {
        guard let pageSize else { return "its header gives no valid page size" }
        if let pageCount, fileSize < Int64(pageCount) * Int64(pageSize) {
            return "truncated: \(fileSize) bytes, but its header counts \(pageCount) pages of \(pageSize) bytes"
        }
        guard fileSize % Int64(pageSize) == 0 else {
            return "truncated: \(fileSize) bytes is not a whole number of \(pageSize)-byte pages"
        }
        return nil
    }
}
