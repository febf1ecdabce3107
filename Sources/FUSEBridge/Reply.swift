import CFuse
import FoundationEssentials
import PackFS

#if canImport(Glibc)
    import Glibc
#endif

/// The one answer a request gets: every path ends in exactly one `fuse_reply_*`, as libfuse requires.
enum Reply {
    case entry(Entry)
    case attributes(TimedAttributes)
    case bytes(Data)
    case open(OpenOptions)
    case create(Entry, OpenOptions)
    case written(Int)
    case statistics(FilesystemStatistics)
    /// The size an xattr value or name list needs (a size probe: the caller passed size 0).
    case xattrSize(Int)
    /// Success with no data (release, unlink, ...): `fuse_reply_err(req, 0)`.
    case done
    case error(Int32)

    /// Sends the reply. `file` is the request's own `fuse_file_info` (open and create fill it in).
    func send(_ req: fuse_req_t?, file: UnsafeMutablePointer<fuse_file_info>? = nil) {
        switch self {
        case .entry(let entry):
            var param = entry.param
            fuse_reply_entry(req, &param)
        case .attributes(let timed):
            var status = timed.attributes.status
            fuse_reply_attr(req, &status, timed.timeout)
        case .bytes(let data):
            data.withUnsafeBytes { _ = fuse_reply_buf(req, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
        case .open(let options):
            guard let file else { return Reply.error(EIO).send(req) }
            options.apply(to: file)
            fuse_reply_open(req, file)
        case .create(let entry, let options):
            guard let file else { return Reply.error(EIO).send(req) }
            options.apply(to: file)
            var param = entry.param
            fuse_reply_create(req, &param, file)
        case .written(let count): fuse_reply_write(req, count)
        case .statistics(let statistics):
            var buffer = statistics.statvfs
            fuse_reply_statfs(req, &buffer)
        case .xattrSize(let size): fuse_reply_xattr(req, size)
        case .done: fuse_reply_err(req, 0)
        case .error(let code): fuse_reply_err(req, code)
        }
    }
}

extension QuickLookup {
    /// The reply a lookup's `serve` would send for the same answer.
    var reply: Reply {
        switch self {
        case .entry(let entry): .entry(entry)
        case .notFound: .error(ENOENT)
        }
    }
}

extension Attributes {
    /// `struct stat` as the kernel wants it: the bridge adds the file type to the permissions.
    var status: stat {
        var status = stat()
        status.st_ino = ino_t(inode.rawValue)
        status.st_mode = kind.fileType | mode_t(permissions & 0o7777)
        status.st_nlink = nlink_t(links)
        status.st_size = off_t(clamping: size)
        status.st_blksize = 4096
        status.st_blocks = blkcnt_t(clamping: (size + 511) / 512)
        status.st_uid = uid
        status.st_gid = gid
        let time = timespec(tv_sec: Int(modified), tv_nsec: Int(modifiedNanoseconds))
        status.st_atim = time
        status.st_mtim = time
        status.st_ctim = time
        return status
    }
}

extension Attributes.Kind {
    /// The S_IF* bits of `st_mode`.
    var fileType: mode_t { self == .directory ? Glibc.S_IFDIR : Glibc.S_IFREG }
}

extension Entry {
    var param: fuse_entry_param {
        var param = fuse_entry_param()
        param.ino = attributes.inode.rawValue
        param.generation = generation
        param.attr = attributes.status
        param.attr_timeout = attributeTimeout
        param.entry_timeout = entryTimeout
        return param
    }
}

extension OpenOptions {
    func apply(to file: UnsafeMutablePointer<fuse_file_info>) {
        file.pointee.fh = handle
        file.pointee.keep_cache = keepCache ? 1 : 0
        file.pointee.direct_io = directIO ? 1 : 0
        file.pointee.cache_readdir = cacheListing ? 1 : 0
    }
}

extension FilesystemStatistics {
    var statvfs: Glibc.statvfs {
        var buffer = Glibc.statvfs()
        buffer.f_bsize = UInt(blockSize)
        buffer.f_frsize = UInt(blockSize)
        buffer.f_blocks = UInt(clamping: blocks)
        buffer.f_bfree = UInt(clamping: freeBlocks)
        buffer.f_bavail = UInt(clamping: freeBlocks)
        buffer.f_files = UInt(clamping: files)
        buffer.f_namemax = UInt(nameMax)
        return buffer
    }
}
