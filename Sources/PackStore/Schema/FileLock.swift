import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on the database file, held by every process that changes it (a mount, a
/// download, a command that writes). `flock` locks are independent of the POSIX locks SQLite
/// takes, and this descriptor is closed only after every SQLite connection is closed, so SQLite's
/// own locks are never dropped by it.
final class FileLock: Sendable {
    private let descriptor: Int32

    /// `creating`: an absent file is created (the commands that make a database); otherwise it
    /// is `fileNotFound`, and nothing is created.
    init(path: String, creating: Bool) throws {
        let fd = open(path, O_RDWR | O_CLOEXEC | (creating ? O_CREAT : 0), 0o644)
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
}
