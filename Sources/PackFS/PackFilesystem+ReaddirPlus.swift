import FoundationEssentials
import PackStore

/// Listings with attributes (READDIRPLUS; see `KernelCaching`). A tile column is answered from one
/// query per page that gives each tile's size, for a process that stats what it lists
/// (`StatWalkers`), names alone for others; other directories are small and looked up entry by entry.
extension PackFilesystem {
    public func readdirPlus(inode: Inode, offset: Int64, limit: Int, caller: Caller) throws -> [PlusEntry] {
        try serving(reads: true) { request in
            let node = try node(inode)
            guard case .column(let region, let ref, let z, let x) = node, statWalkers.wantsAttributes(caller.pid) else {
                let entries = try listing(of: node, inode: inode, after: offset, limit: max(limit, 0), request)
                guard case .column = node else { return lookingUp(entries, in: node, caller: caller, request) }
                return entries.map { ($0, nil) }
            }
            let dots = try dots(of: node, inode: inode, after: offset, request).map { ($0, Entry?.none) }
            let tiles = try tilesWithAttributes(
                region, ref, z: z, x: x, after: offset, limit: max(limit, 0) - dots.count, request)
            return dots + tiles
        }
    }

    /// `entries` of `parent`, each as a lookup gives it (nil for `.`, `..` and one that went).
    private func lookingUp(_ entries: [DirectoryEntry], in parent: Node, caller: Caller, _ request: Request)
        -> [PlusEntry]
    {
        entries.map { entry in
            guard entry.name != ".", entry.name != ".." else { return (entry, nil) }
            return (entry, try? self.entry(named: entry.name, in: parent, caller: caller, request))
        }
    }

    /// Up to `limit` tiles of column z/x after cookie `offset`, each with its entry.
    private func tilesWithAttributes(
        _ region: RegionID, _ ref: SourceRef, z: Int, x: Int, after offset: Int64, limit: Int, _ request: Request
    ) throws -> [PlusEntry] {
        let (_, source) = try request.source(region, ref)
        guard limit > 0, let columns = source.columns else { return [] }
        let rows = try database.tileRowsWithSizes(
            columns, z: z, x: x, after: source.row(Int(max(offset, 2) - 3), z: z),
            descending: source.tiles?.scheme == .tms, limit: limit)
        return rows.compactMap { row -> PlusEntry? in
            let y = source.row(row.y, z: z)
            // Outside the grid, or a row no inode can name: left out, as `listing` does.
            guard (0..<1 << z).contains(y), let tag = try? database.rowTag(.tile, row.id.rawValue),
                let inode = try? InodeCodec.encode(.tile(region, row.id, tag))
            else { return nil }
            let entry = DirectoryEntry(name: "\(y).\(source.fileExtension)", inode: inode, kind: .regularFile, cookie: 3 + Int64(y))
            // A switched row's size is its current version's (`tileRowsWithSizes` reads the live row).
            guard let size = row.size ?? decodedSize(of: row.id, in: region, inode: inode) else { return (entry, nil) }
            return (entry, Entry(attributes: file(inode, 0o444, size), freshness: .immutable))
        }
    }

    /// The served size of a tile the store has no size for (an app's), by decoding it. nil when it
    /// went or does not decode: the entry goes without attributes and its lookup reports why.
    private func decodedSize(of id: TileID, in region: RegionID, inode: Inode) -> Int? {
        if let known = cache.size(inode) { return Int(known) }
        guard let content = (try? database.servedTile(.row(id), in: region))?.content else { return nil }
        cache.store(size: UInt64(content.count), for: inode)
        return content.count
    }
}
