import Basics
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A file on its way into the database (a fetched patch, or one copied to `packs/NAME.patch` on a mount),
/// kept beside it as `.<database file>.patch-XXXXXX` until used: SQLite reads a patch only from a named
/// file, and the database's disk is the one known to have room. Whoever holds the database's lock owns
/// these names, and removes a killed process's leftovers (`removeLeftovers`).
public final class SpoolFile: @unchecked Sendable {  // `descriptor` is guarded by `lock`
    public let path: String
    private let lock = Lock()
    private var descriptor: Int32

    /// A new empty spool file beside the database at `databasePath`.
    public init(besideDatabase databasePath: String) throws {
        var template = Array((Self.prefix(for: databasePath) + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw StoreError.spoolFailed(path: Self.prefix(for: databasePath) + "XXXXXX", action: "create", reason: Self.errnoText())
        }
        descriptor = fd
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { remove() }

    /// Writes `data` at `offset` (a mount's writes may come in any order).
    public func write(_ data: Data, at offset: Int64) throws {
        try lock.withLock {
            guard descriptor >= 0 else { throw StoreError.spoolFailed(path: path, action: "write", reason: "closed") }
            var done = 0
            while done < data.count {
                let written = data.withUnsafeBytes { bytes in
                    pwrite(descriptor, bytes.baseAddress.map { $0 + done }, data.count - done, off_t(offset) + off_t(done))
                }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw Self.failure(path, "write") }
                done += written
            }
        }
    }

    /// Sets the file's size (a truncation on the mount).
    public func resize(to size: Int64) throws {
        try lock.withLock {
            guard descriptor >= 0, ftruncate(descriptor, off_t(size)) == 0 else {
                throw Self.failure(path, "truncate")
            }
        }
    }

    /// Closes and deletes the file (again: nothing).
    public func remove() {
        lock.withLock {
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
            unlink(path)
        }
    }

    /// Deletes the spool files of a process that was killed while it held the database.
    public static func removeLeftovers(besideDatabase databasePath: String) {
        let prefix = URL(fileURLWithPath: prefix(for: databasePath))
        let directory = prefix.deletingLastPathComponent().path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix.lastPathComponent) {
            unlink(directory + "/" + name)
        }
    }

    private static func prefix(for databasePath: String) -> String {
        let url = URL(fileURLWithPath: databasePath)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".patch-").path
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    private static func failure(_ path: String, _ action: String) -> StoreError {
        errno == ENOSPC ? .diskFull(path: path) : .spoolFailed(path: path, action: action, reason: errnoText())
    }
}
