import FoundationEssentials

/// A node number as the kernel sees it; 1 is the root (FUSE_ROOT_ID). Its bit layout: `InodeCodec`.
public struct Inode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public static let root = Inode(rawValue: 1)
    public var description: String { String(rawValue) }
}

/// What `stat` shows for a node.
public struct Attributes: Equatable, Sendable {
    public enum Kind: Sendable { case directory, regularFile }

    public var inode: Inode
    public var kind: Kind
    /// Permission bits only (0o444, 0o555, 0o644, 0o755); the bridge adds the file type.
    public var permissions: UInt16
    /// Exact content size in bytes (directories: 0 or a nominal size).
    public var size: UInt64
    public var links: UInt32
    /// Seconds since the epoch, for atime, mtime and ctime alike.
    public var modified: Int64
    /// Live files derive these from their content, so a change of the same size still shows a new
    /// mtime (AUTO_INVAL_DATA then drops cached pages).
    public var modifiedNanoseconds: UInt32 = 0
    public var uid: UInt32
    public var gid: UInt32

    public init(
        inode: Inode, kind: Kind, permissions: UInt16, size: UInt64, links: UInt32 = 1,
        modified: Int64, uid: UInt32, gid: UInt32
    ) {
        self.inode = inode
        self.kind = kind
        self.permissions = permissions
        self.size = size
        self.links = links
        self.modified = modified
        self.uid = uid
        self.gid = gid
    }
}

extension Filesystem {
    /// None here: every lookup goes to `lookup`.
    public func quickLookup(parent: Inode, name: UnsafeBufferPointer<UInt8>, caller: Caller) -> QuickLookup? { nil }

    /// None here: every read goes to `read`.
    public func quickRead(inode: Inode, offset: Int64, size: Int) -> Data? { nil }
}

/// What a quick lookup found: the entry, or that the name is not there.
public enum QuickLookup: Equatable, Sendable {
    case entry(Entry)
    case notFound
}

/// A lookup's answer: the node and how long the kernel may cache the name and the attributes.
public struct Entry: Equatable, Sendable {
    public var attributes: Attributes
    /// Seconds the kernel may keep the name -> inode mapping without asking again.
    public var entryTimeout: Double
    /// Seconds the kernel may keep the attributes.
    public var attributeTimeout: Double
    /// Bump it when an inode number is reused for a different node (only NFS export relies on it).
    public var generation: UInt64

    public init(attributes: Attributes, entryTimeout: Double, attributeTimeout: Double, generation: UInt64 = 0) {
        self.attributes = attributes
        self.entryTimeout = entryTimeout
        self.attributeTimeout = attributeTimeout
        self.generation = generation
    }
}

/// A getattr or setattr answer with how long the kernel may keep it, so a stat after the kernel
/// dropped its copy (a read marks atime stale) is answered once, not once a second.
public struct TimedAttributes: Equatable, Sendable {
    public var attributes: Attributes
    /// Seconds the kernel may keep the attributes.
    public var timeout: Double

    public init(attributes: Attributes, timeout: Double) {
        self.attributes = attributes
        self.timeout = timeout
    }
}

/// One name in a listing; its `cookie` is stable, so a listing that grows during a download resumes where it left off.
public struct DirectoryEntry: Equatable, Sendable {
    public var name: String
    public var inode: Inode
    public var kind: Attributes.Kind
    public var cookie: Int64

    public init(name: String, inode: Inode, kind: Attributes.Kind, cookie: Int64) {
        self.name = name
        self.inode = inode
        self.kind = kind
        self.cookie = cookie
    }
}

/// How an open file may be cached by the kernel.
public struct OpenOptions: Equatable, Sendable {
    /// The content cannot change while this inode means this content: keep the page cache.
    public var keepCache: Bool
    /// Use direct I/O (content whose size changes, like progress.json).
    public var directIO: Bool
    /// A handle the filesystem wants back in read/write/release (0: none).
    public var handle: UInt64
    /// A directory: the kernel keeps the listing it reads (FOPEN_CACHE_DIR), which `keepCache` then keeps
    /// over this open instead of dropping it.
    public var cacheListing: Bool

    public init(keepCache: Bool, directIO: Bool = false, handle: UInt64 = 0, cacheListing: Bool = false) {
        self.keepCache = keepCache
        self.directIO = directIO
        self.handle = handle
        self.cacheListing = cacheListing
    }
}

public struct FilesystemStatistics: Equatable, Sendable {
    public var blockSize: UInt32
    public var blocks: UInt64
    public var freeBlocks: UInt64
    public var files: UInt64
    public var nameMax: UInt32

    public init(blockSize: UInt32, blocks: UInt64, freeBlocks: UInt64, files: UInt64, nameMax: UInt32 = 255) {
        self.blockSize = blockSize
        self.blocks = blocks
        self.freeBlocks = freeBlocks
        self.files = files
        self.nameMax = nameMax
    }
}

/// The caller of an operation (from `fuse_req_ctx`), for permission decisions.
public struct Caller: Equatable, Sendable {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32
    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }
}

/// The operations the FUSE bridge calls, possibly concurrently: implementations are thread-safe and
/// never wait on the network. Errors are `FilesystemError`s (errno by `FilesystemError.errno`).
public protocol Filesystem: AnyObject, Sendable {
    /// The kernel agreed to stateless opens (FUSE_CAP_NO_OPEN_SUPPORT): no open and no release, not
    /// even for files it creates. Called from `init`, before any request.
    func useStatelessOpens()
    func lookup(parent: Inode, name: String, caller: Caller) throws -> Entry
    /// A lookup answered without a request's machinery where that is all it takes (`PackFilesystem.quickLookup`);
    /// nil: ask `lookup`. `name`: the kernel's bytes, no Swift string made of them (valid UTF-8 or not).
    func quickLookup(parent: Inode, name: UnsafeBufferPointer<UInt8>, caller: Caller) -> QuickLookup?
    /// The kernel dropped `lookups` references to `inode`.
    func forget(inode: Inode, lookups: UInt64)
    func getattr(inode: Inode, caller: Caller) throws -> TimedAttributes
    /// At most `limit` entries after `offset` (0, or a previous entry's cookie); `.` and `..` included.
    func readdir(inode: Inode, offset: Int64, limit: Int, caller: Caller) throws -> [DirectoryEntry]
    /// `readdir` with each entry as `lookup` gives it (the kernel counts a lookup for each), handed to `add` in
    /// order until it says the reply is full: a tile column's page goes from its query's rows to the reply's
    /// bytes with no array of names or entries between (a `du` of a big pack lists a million).
    func readdirPlus(inode: Inode, offset: Int64, limit: Int, caller: Caller, into add: PlusSink) throws
    func open(inode: Inode, flags: Int32, caller: Caller) throws -> OpenOptions
    /// How the kernel treats the listing of directory `inode` for this open (cached or read afresh).
    func opendir(inode: Inode, caller: Caller) throws -> OpenOptions
    func read(inode: Inode, handle: UInt64, offset: Int64, size: Int) throws -> Data
    /// A read answered without a request's machinery where that is all it takes (`PackFilesystem.quickRead`); nil:
    /// ask `read`.
    func quickRead(inode: Inode, offset: Int64, size: Int) -> Data?
    func release(inode: Inode, handle: UInt64)
    func statfs() throws -> FilesystemStatistics

    // Changes (docs/design.md §2, "Management with ordinary tools").
    func create(parent: Inode, name: String, mode: UInt32, flags: Int32, caller: Caller) throws -> (Entry, OpenOptions)
    /// A region file is judged by the write that completes it (no flush: see the bridge's `flush`).
    func write(inode: Inode, handle: UInt64, offset: Int64, data: Data) throws -> Int
    func unlink(parent: Inode, name: String, caller: Caller) throws
    func rmdir(parent: Inode, name: String, caller: Caller) throws
    func mkdir(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry
    /// `ln -s`, `ln` and `mknod`: each must answer, even if only to refuse, or the user sees ENOSYS.
    func symlink(target: String, parent: Inode, name: String, caller: Caller) throws -> Entry
    func link(inode: Inode, newParent: Inode, newName: String, caller: Caller) throws -> Entry
    func mknod(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry
    func rename(parent: Inode, name: String, newParent: Inode, newName: String, caller: Caller) throws
    /// chmod/chown/truncate/utimens; `touch` on a region file refreshes the pack.
    func setattr(inode: Inode, changes: AttributeChanges, caller: Caller) throws -> TimedAttributes
    func getxattr(inode: Inode, name: String) throws -> Data
    func setxattr(inode: Inode, name: String, value: Data, caller: Caller) throws
    func listxattr(inode: Inode) throws -> [String]
    func removexattr(inode: Inode, name: String, caller: Caller) throws
}

/// What a `setattr` asks to change (nil: unchanged).
public struct AttributeChanges: Equatable, Sendable {
    public var mode: UInt32?
    public var uid: UInt32?
    public var gid: UInt32?
    public var size: UInt64?
    /// Seconds since the epoch; `touch` sets both times to now.
    public var accessed: Int64?
    public var modified: Int64?

    public init(mode: UInt32? = nil, uid: UInt32? = nil, gid: UInt32? = nil, size: UInt64? = nil,
                accessed: Int64? = nil, modified: Int64? = nil) {
        self.mode = mode
        self.uid = uid
        self.gid = gid
        self.size = size
        self.accessed = accessed
        self.modified = modified
    }
}

/// Where `readdirPlus` puts an entry: its name (NUL-terminated), inode, kind, the entry as `lookup` gives it (nil
/// for `.`, `..` and one that went meanwhile) and cookie. False: it did not fit, and the listing stops there.
public typealias PlusSink = (
    _ name: UnsafePointer<CChar>, _ inode: Inode, _ kind: Attributes.Kind, _ entry: Entry?, _ cookie: Int64
) -> Bool

extension DirectoryEntry {
    /// `.` or `..`: listed without attributes, never looked up.
    public var isDot: Bool { name == "." || name == ".." }

    /// Puts this entry, with `entry` as its attributes, into `add`; false when it did not fit.
    public func put(_ entry: Entry?, into add: PlusSink) -> Bool {
        name.withCString { add($0, inode, kind, entry, cookie) }
    }
}

extension Filesystem {
    /// Models that keep no state per open need nothing.
    public func useStatelessOpens() {}

    /// Listings read afresh at every open.
    public func opendir(inode: Inode, caller: Caller) throws -> OpenOptions { OpenOptions(keepCache: false) }

    /// Right for any model; PackFilesystem answers its tile columns faster.
    public func readdirPlus(inode: Inode, offset: Int64, limit: Int, caller: Caller, into add: PlusSink) throws {
        for entry in try readdir(inode: inode, offset: offset, limit: limit, caller: caller) {
            guard entry.put(entry.isDot ? nil : try? lookup(parent: inode, name: entry.name, caller: caller), into: add) else { return }
        }
    }
}
