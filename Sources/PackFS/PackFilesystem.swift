import Basics
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// The mount's tree (docs/design.md §2) over one offline database. Every node is decoded from its inode (`InodeCodec`)
/// and answered from the store at the time of the call, so listings grow while a download writes. Stored properties are
/// fixed at construction; what changes sits in the lock-guarded parts.
public final class PackFilesystem: Filesystem, Sendable {
    let database: OfflineDatabase
    /// The absolute mountpoint path: `style.json` points its URLs into it.
    let mountpoint: String
    /// `--max-tiles`, shown in status.json (nil: no limit).
    let tileLimit: Int?
    /// `--disk-quota`, shown in status.json (nil: none).
    let diskQuota: Int64?
    /// Where region files and pack commands go; nil refuses them (EPERM).
    let controller: (any PackController)?
    /// Shared with whoever reports changes.
    let caches: TreeCaches
    let mountTime = Int64(Date().timeIntervalSince1970)
    let uid = getuid()
    let gid = getgid()
    let rejections = Rejections()
    let drafts = RegionDrafts()
    let vacancies = Vacancies()
    let dropSettler = DropSettler()
    let removedPacks = RemovedPacks()
    let statWalkers = StatWalkers()
    let listings = KernelListings()
    let readAhead: ReadAhead
    let listingAhead = ListingAhead()
    /// Other files in `packs/` (`sed -i`'s temporary file), in memory.
    let scratches = ScratchFiles()
    /// Patches being copied to `packs/<name>.patch`, spooled beside the database.
    let uploads = PatchUploads()
    /// Set once the kernel agreed to stateless opens: created files get no release either.
    let statelessOpens = LockedState(false)
    /// How the kernel's requests arrive, for status.json; set by the mount once INIT is answered.
    public let transport = LockedState<String?>(nil)
    /// `--web-base`: where a web server publishes the mountpoint (each pack then shows `web-style.json`).
    let webBase: String?
    /// The web page the root shows with a web base; nil without one, or when its files could not be read.
    let webPage: WebPage?
    /// How long an implicit draft may rest undecided before it is judged as it stands.
    let settleDelay: TimeInterval

    /// `database` should be open in `.mount` mode (WAL: reads never wait for a download).
    public init(
        database: OfflineDatabase, mountpoint: String, tileLimit: Int? = nil, diskQuota: Int64? = nil,
        caches: TreeCaches? = nil,
        controller: (any PackController)? = nil, settleDelay: TimeInterval = 2, webBase: String? = nil,
        webPage: WebPage? = nil, readAhead: ReadAheadMode = .off
    ) {
        self.readAhead = ReadAhead(mode: readAhead)
        self.database = database
        self.webBase = webBase
        self.webPage = webBase == nil ? nil : webPage
        self.settleDelay = settleDelay
        self.mountpoint = mountpoint.count > 1 && mountpoint.hasSuffix("/") ? String(mountpoint.dropLast()) : mountpoint
        self.tileLimit = tileLimit
        self.diskQuota = diskQuota
        self.caches = caches ?? TreeCaches(database: database, kernel: nil)
        self.controller = controller
    }

    var kernelCache: (any KernelCache)? { caches.kernel }

    var cache: ContentCache { caches.contents }

    // MARK: Filesystem, read side

    public func lookup(parent: Inode, name: String, caller: Caller) throws -> Entry {
        try serving(reads: true) { request in try entry(named: name, in: try node(parent), caller: caller, request) }
    }

    /// The entry of `name` in `parent`, for a lookup or a READDIRPLUS entry.
    func entry(named name: String, in parent: Node, caller: Caller, _ request: Request) throws -> Entry {
        guard name.utf8.count <= 255 else { throw FilesystemError.nameTooLong }
        // Tiles, the lookups that count (a map reads thousands), take one read.
        if case .column(let region, let ref, let z, let x) = parent {
            statWalkers.noteLookup(by: caller.pid)
            return try tileEntry(named: name, in: region, ref, z: z, x: x, caller: caller, request)
        }
        return try entry(for: try child(named: name, of: parent, request), request)
    }

    /// Stops reading ahead (at unmount, before the store closes).
    public func stopReadingAhead() {
        readAhead.stop()
        listingAhead.stop()
    }

    public func useStatelessOpens() {
        statelessOpens.withLock { $0 = true }
    }

    public func forget(inode: Inode, lookups: UInt64) {
        // Inodes name what they are: there is no table to drop counts from.
    }

    public func getattr(inode: Inode, caller: Caller) throws -> TimedAttributes {
        try serving(reads: true) { request in try timedAttributes(of: try node(inode), inode: inode, request) }
    }

    public func readdir(inode: Inode, offset: Int64, limit: Int, caller: Caller) throws -> [DirectoryEntry] {
        try serving(reads: true) { request in
            let node = try node(inode)
            if case .column = node { statWalkers.noteListing(by: caller.pid) }
            return try listing(of: node, inode: inode, after: offset, limit: max(limit, 0), request)
        }
    }

    public func open(inode: Inode, flags: Int32, caller: Caller) throws -> OpenOptions {
        try serving(reads: flags & O_ACCMODE == O_RDONLY) { request in
            let node = try node(inode)
            let (attributes, freshness) = try attributes(of: node, inode: inode, request)
            guard attributes.kind == .regularFile else { throw FilesystemError.isDirectory }
            if flags & O_ACCMODE != O_RDONLY { return try openForWriting(node, inode: inode, flags: flags, request) }
            if flags & O_TRUNC != 0 { throw try refusal(at: inode) }
            return OpenOptions(keepCache: freshness == .immutable, directIO: freshness == .live)
        }
    }

    public func read(inode: Inode, handle: UInt64, offset: Int64, size: Int) throws -> Data {
        if let kept = quickRead(inode: inode, offset: offset, size: size) { return kept }
        return try serving(reads: true) { request in
            let node = try node(inode)
            if readAhead.isOn, case .tile = node { readAhead.read(inode) }
            return Self.part(of: try content(of: node, inode: inode, request), offset: offset, size: size)
        }
    }

    /// A read of a content its lookup has just kept (a cold tile's: nearly every read), which needs no request and no
    /// snapshot; the read that reaches its end takes it. Nil otherwise, and while reading ahead, which counts the reads
    /// of tiles (`read` then answers).
    public func quickRead(inode: Inode, offset: Int64, size: Int) -> Data? {
        guard !readAhead.isOn else { return nil }
        let end = offset.addingReportingOverflow(Int64(size)).overflow ? Int64.max : offset + Int64(size)
        return cache.content(inode, readTo: end).map { Self.part(of: $0, offset: offset, size: size) }
    }

    /// What a read of `size` bytes at `offset` gets of `data`: the whole, as it is, for a read of all of it.
    static func part(of data: Data, offset: Int64, size: Int) -> Data {
        guard offset >= 0, offset < data.count, size > 0 else { return Data() }
        if offset == 0, size >= data.count { return data }
        let start = data.startIndex + Int(offset)
        // The kernel's size is not added to the offset: a size near Int.max would overflow.
        return data[start..<start + min(size, data.endIndex - start)]
    }

    /// Used: the database's bytes. Free: what its disk has left, where new packs grow, so `df` shows
    /// the room packs have instead of a full disk.
    public func statfs() throws -> FilesystemStatistics {
        try serving { _ in
            let counts = try database.databaseCounts()
            let used = UInt64(max(counts.bytes, 0) + 4095) / 4096
            let free = availableBytes(onDiskOf: database.path) / 4096
            return FilesystemStatistics(
                blockSize: 4096, blocks: used + free, freeBlocks: free,
                files: UInt64(clamping: counts.resources) + UInt64(clamping: counts.tiles))
        }
    }

    // MARK: Shared helpers

    func node(_ inode: Inode) throws -> Node {
        guard let node = InodeCodec.decode(inode) else { throw FilesystemError.stale }
        return node
    }

    /// The pack `region` names now; `.stale` when removed. The kernel still holds a name of it (a
    /// lookup can land after the removal's invalidation), so that name is invalidated again.
    func currentPack(_ region: RegionID) throws -> Pack {
        guard let pack = try database.packs().first(where: { $0.id == region }) else {
            if let name = removedPacks.name(of: region) { packsChanged(name, name + Self.regionSuffix) }
            throw FilesystemError.stale
        }
        return pack
    }

    /// Runs one FUSE request with its `Request`; a failure that is not a `FilesystemError` becomes
    /// `.io` with its cause, for the bridge to log. A request that only `reads` reads one snapshot
    /// (`withOneSnapshot`); one that writes must see its own writes.
    func serving<T>(reads: Bool = false, _ body: (Request) throws -> T) throws -> T {
        let counted = readAhead.isOn
        if counted { readAhead.demand.add(1, ordering: .relaxed) }
        defer { if counted { readAhead.demand.subtract(1, ordering: .relaxed) } }
        do {
            guard reads else { return try body(Request(self)) }
            return try database.withOneSnapshot { try body(Request(self)) }
        } catch let error as FilesystemError {
            throw error
        } catch StoreError.diskFull(let path) {
            throw FilesystemError.noSpace("\(path): the disk is full")
        } catch {
            throw FilesystemError.io(String(describing: error))
        }
    }
}

/// What the filesystem holding `path` has left for unprivileged users, in bytes (0 if unknown).
func availableBytes(onDiskOf path: String) -> UInt64 {
    var figures = statvfs()
    guard statvfs(path, &figures) == 0 else { return 0 }
    return UInt64(figures.f_bavail) * UInt64(figures.f_frsize)
}
