#if canImport(Glibc)
    import Glibc
#endif

/// Every failure the filesystem reports, and the one table that maps them to errno.
public enum FilesystemError: Error, Equatable, CustomStringConvertible {
    case notFound
    case notDirectory
    case isDirectory
    case exists
    case notEmpty
    /// A change outside the writable surface (tiles, styles, anything inside a pack).
    case readOnly
    /// An operation PackFS refuses on a writable node (chmod of a region file, truncate...).
    case notPermitted
    /// A rejected region file (its reason is in `<name>.error`) or a bad argument.
    case invalid(String)
    /// An inode that no longer names anything. ENOENT, not ESTALE: the kernel's one retry of a path
    /// walk fails on a second change, and it hands ESTALE as it is to calls on an open descriptor,
    /// where a program should see that the file is gone. The kernel's stale names of a removed pack
    /// are invalidated instead (`currentPack`).
    case stale
    case noAttribute
    case nameTooLong
    /// A region file whose content would pass `RegionDrafts.maxBytes`.
    case tooLarge
    /// A region file still being written (rename or remove it once its writer is done).
    case busy
    /// An extended attribute PackFS does not keep; ENOTSUP, which `cp -a` and `mv` skip quietly.
    case notSupported
    /// The database's disk is full: the change was not made (its transaction rolled back).
    case noSpace(String)
    /// Anything unexpected; the bridge logs the cause.
    case io(String)

    /// The one domain-error -> errno table.
    public var errno: Int32 {
        switch self {
        case .notFound: return ENOENT
        case .notDirectory: return ENOTDIR
        case .isDirectory: return EISDIR
        case .exists: return EEXIST
        case .notEmpty: return ENOTEMPTY
        case .readOnly: return EROFS
        case .notPermitted: return EPERM
        case .invalid: return EINVAL
        case .stale: return ENOENT
        case .noAttribute: return ENODATA
        case .nameTooLong: return ENAMETOOLONG
        case .tooLarge: return EFBIG
        case .busy: return EBUSY
        case .notSupported: return ENOTSUP
        case .noSpace: return ENOSPC
        case .io: return EIO
        }
    }

    public var description: String {
        switch self {
        case .invalid(let reason): return "invalid: \(reason)"
        case .io(let cause): return "I/O error: \(cause)"
        case .noSpace(let cause): return "no space: \(cause)"
        default: return "errno \(errno)"
        }
    }
}
