import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on the database file, held by every process that changes it. `flock` is
/// independent of SQLite's POSIX locks, and this descriptor closes only after every connection, so
/// closing it never drops SQLite's locks.
final class FileLock: Sendable {
    private let descriptor: Int32

    /// `creating` (commands that make a database): an absent file is created with `fileMode`; else `fileNotFound`.
    init(path: String, creating: Bool, fileMode: UInt32) throws {
        let fd = creating ? Self.create(path, fileMode) : open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let cause = errno
            if cause == ENOENT && !creating { throw StoreError.fileNotFound(path: path) }
            throw StoreError.cannotOpen(path: path, reason: FileInspection.reason(cause))
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw StoreError.inUse(path: path)
        }
        descriptor = fd
    }

    func release() { close(descriptor) }

    /// The locked file's permission bits (it may be deleted since: the descriptor still names it).
    var fileMode: UInt32? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? UInt32(info.st_mode) & 0o7777 : nil
    }

    /// Opens `path`, creating it with exactly `mode` (whatever the umask) when absent; an existing file
    /// keeps its mode. SQLite gives -wal, -shm and -journal the main file's mode (docs/design.md §1).
    static func create(_ path: String, _ mode: UInt32) -> Int32 {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL, mode_t(mode))
        guard fd >= 0 else { return errno == EEXIST ? open(path, O_RDWR | O_CLOEXEC) : fd }
        _ = fchmod(fd, mode_t(mode))
        return fd
    }
}
