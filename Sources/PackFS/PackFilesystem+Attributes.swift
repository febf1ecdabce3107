import FoundationEssentials
import PackStore

extension Entry {
    /// An entry whose name and attributes the kernel may keep for as long as `freshness` says.
    init(attributes: Attributes, freshness: Freshness) {
        self.init(attributes: attributes, entryTimeout: freshness.timeout, attributeTimeout: freshness.timeout)
    }
}

/// How long the kernel may trust what it learns about a node, in seconds.
enum Freshness: Double {
    /// Tiles, glyphs, sprites, TileJSON, the style of a complete pack: an hour, page cache kept.
    case immutable = 3600
    /// A pack's directories while it downloads: they grow, so the kernel asks again soon.
    case settling = 1
    /// status.json, progress.json, coverage.geojson and region files: never cached.
    case live = 0

    var timeout: Double { rawValue }
}

extension PackFilesystem {
    func entry(for node: Node, _ request: Request) throws -> Entry {
        let inode = try InodeCodec.encode(node)
        let (attributes, freshness) = try attributes(of: node, inode: inode, request)
        // The root's names never change what they name, though status.json and packs.json are
        // live: a zero entry timeout would cost every path walk a lookup of "packs".
        let binding = [.packs, .status, .packList].contains(node) ? Freshness.immutable : freshness
        return Entry(attributes: attributes, entryTimeout: binding.timeout, attributeTimeout: freshness.timeout)
    }

    func timedAttributes(of node: Node, inode: Inode, _ request: Request) throws -> TimedAttributes {
        let (attributes, freshness) = try attributes(of: node, inode: inode, request)
        return TimedAttributes(attributes: attributes, timeout: freshness.timeout)
    }

    /// A region file's mode: read and written by the mounting user only.
    static let regionFileMode: UInt16 = 0o600

    /// The attributes of `node`; `.stale` when its pack or its row is gone.
    func attributes(of node: Node, inode: Inode, _ request: Request)
        throws -> (attributes: Attributes, freshness: Freshness)
    {
        switch node {
        case .root: return (directory(inode, 0o555), .live)
        // Its own attributes never change (the listing is read afresh at every opendir).
        case .packs: return (directory(inode, 0o755), .immutable)
        // The owner's only (docs/design.md §2, "Secrets"): the style URL may carry a key.
        case .draft: return (liveFile(inode, Self.regionFileMode, try content(of: node, inode: inode, request)), .live)
        case .scratch(let serial):
            guard let file = scratches.file(serial) else { throw FilesystemError.stale }
            return (liveFile(inode, file.mode, file.content), .live)
        case .patch(let serial):
            guard let upload = uploads.file(serial) else { throw FilesystemError.stale }
            return (file(inode, 0o600, Int(clamping: upload.size)), .live)
        case .status, .packList, .rejection:
            return (liveFile(inode, 0o444, try content(of: node, inode: inode, request)), .live)
        // The page is read once, at the mount: it never changes while mounted.
        case .webFile(let index): return (file(inode, 0o444, try pageFile(index).content.count), .immutable)
        case .pack(let region, let part): return try attributes(of: part, in: region, inode: inode, request)
        case .source(let region, let ref, let part):
            guard !ref.primary, try request.layout(region).source(ref) != nil else { throw FilesystemError.stale }
            let freshness = directoryFreshness(region, request)
            guard part != .directory else { return (directory(inode, 0o555), freshness) }
            return (file(inode, 0o444, try size(of: node, inode: inode, request)), freshness)
        case .zoom(let region, let ref, _), .column(let region, let ref, _, _):
            guard try request.layout(region).source(ref) != nil else { throw FilesystemError.stale }
            return (directory(inode, 0o555), directoryFreshness(region, request))
        case .fontStack(let region, let id):
            // A pack being removed is gone at once, while its rows go in the background.
            _ = try request.pack(region)
            guard try database.packHolds(resource: id, in: region) || vacancies.stackName(region: region, id: id) != nil
            else { throw FilesystemError.stale }
            return (directory(inode, 0o555), directoryFreshness(region, request))
        case .tile(let region, let id, let tag):
            _ = try request.pack(region)
            guard try database.packHolds(tile: id, in: region) else { throw FilesystemError.stale }
            return (file(inode, 0o444, try tileSize(id, tag, node: node, inode: inode, request)), .immutable)
        case .resource(let region, let id, _):
            _ = try request.pack(region)
            guard try database.packHolds(resource: id, in: region) else { throw FilesystemError.stale }
            return (file(inode, 0o444, try size(of: node, inode: inode, request)), .immutable)
        }
    }

    private func attributes(of part: PackPart, in region: RegionID, inode: Inode, _ request: Request)
        throws -> (attributes: Attributes, freshness: Freshness)
    {
        let node = Node.pack(region, part)
        switch part {
        case .directory, .sources, .glyphs, .sprites:
            _ = try request.pack(region)
            return (directory(inode, 0o555), directoryFreshness(region, request))
        case .regionFile:
            return (liveFile(inode, Self.regionFileMode, try content(of: node, inode: inode, request)), .live)
        case .progress, .coverage:
            return (liveFile(inode, 0o444, try content(of: node, inode: inode, request)), .live)
        case .style, .webStyle:
            guard try request.isComplete(region) else {
                return (liveFile(inode, 0o444, try content(of: node, inode: inode, request)), .live)
            }
            return (file(inode, 0o444, try size(of: node, inode: inode, request)), .immutable)
        }
    }

    private func directoryFreshness(_ region: RegionID, _ request: Request) -> Freshness {
        (try? request.isComplete(region)) == true ? .immutable : .settling
    }

    /// A tile's size for a stat (`du` after the kernel dropped its inode): the recorded one, unless a
    /// switch may have given the inode's version other bytes, else by decoding it.
    private func tileSize(_ id: TileID, _ tag: RowTag, node: Node, inode: Inode, _ request: Request) throws -> Int {
        if let size = cache.size(inode) { return Int(size) }
        if tag == .initial, !database.hasSwitchedRows, let size = try database.recordedSize(ofTile: id) {
            cache.store(size: UInt64(size), for: inode)
            return size
        }
        return try content(of: node, inode: inode, request).count
    }

    /// The exact size of immutable content: from the cache, else by decoding it once.
    func size(of node: Node, inode: Inode, _ request: Request) throws -> Int {
        if let size = cache.size(inode) { return Int(size) }
        return try content(of: node, inode: inode, request).count
    }

    /// `st_nlink` 1: "not counted". With 2, fts would think z/x/ had no subdirectories and skip them.
    func directory(_ inode: Inode, _ permissions: UInt16) -> Attributes {
        Attributes(
            inode: inode, kind: .directory, permissions: permissions, size: 0, links: 1, modified: mountTime,
            uid: uid, gid: gid)
    }

    /// A file whose content changes under one inode: its mtime's nanoseconds hash the content, as the
    /// kernel keeps pages until size or mtime change. Its seconds are the one before the mount's, so
    /// the nanoseconds never put it in the future (`ls -l` would show a year instead of the time).
    func liveFile(_ inode: Inode, _ permissions: UInt16, _ content: Data) -> Attributes {
        var attributes = file(inode, permissions, content.count)
        var hash: UInt32 = 2_166_136_261  // FNV-1a
        // Over the buffer, not Data's iterator, whose per-byte cost a large coverage.geojson felt.
        content.withUnsafeBytes { bytes in
            for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        }
        attributes.modified = mountTime - 1
        attributes.modifiedNanoseconds = hash % 1_000_000_000
        return attributes
    }

    func file(_ inode: Inode, _ permissions: UInt16, _ size: Int) -> Attributes {
        Attributes(
            inode: inode, kind: .regularFile, permissions: permissions, size: UInt64(size), modified: mountTime,
            uid: uid, gid: gid)
    }
}
