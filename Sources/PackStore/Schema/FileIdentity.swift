import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Which file a database opened: its device and inode. If a mount's file is deleted or replaced, the
/// connections keep the old one open and changes would go into a file nobody can see; checked before
/// each write, this turns that into `StoreError.fileGone`.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the file at `path` now; nil when there is none.
    static func of(_ path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }
}

extension OfflineDatabase {
    /// Why the file at `path` is no longer the one this database opened, or nil while it is.
    public var fileProblem: String? {
        guard let identity else { return nil }
        guard let now = FileIdentity.of(path) else {
            return "\(path) was deleted while in use: changes are refused; what it held is saved when it closes"
        }
        guard now == identity else {
            return "\(path) was replaced by another file while in use: changes are refused; what it held is"
                + " saved beside it when it closes"
        }
        return nil
    }

    /// Throws `fileGone` when the file at `path` is not the one this database opened.
    func requireOwnFile() throws {
        if let problem = fileProblem { throw StoreError.fileGone(problem) }
    }

    /// Where a mount whose file went saves what it held: the path if free, else `<path>.recovered[-N]`.
    func recoveryPath() -> String {
        guard FileManager.default.fileExists(atPath: path) else { return path }
        var candidate = path + ".recovered"
        var serial = 1
        while FileManager.default.fileExists(atPath: candidate) {
            serial += 1
            candidate = path + ".recovered-\(serial)"
        }
        return candidate
    }
}
