import FoundationEssentials
import PackStore

/// Listings with attributes (READDIRPLUS; see `KernelCaching`). A tile column is answered from one
/// query per page that gives each tile's size, for a process that stats what it lists
/// (`StatWalkers`), names alone for others; other directories are small and looked up entry by entry.
/// A column's page goes from its rows to the reply's bytes (`PlusSink`), and the page after it is read
/// while the walker takes this one in (`ListingAhead`).
extension PackFilesystem {
    public func readdirPlus(inode: Inode, offset: Int64, limit: Int, caller: Caller, into add: PlusSink) throws {
        try serving(reads: true) { request in
            let node = try node(inode)
            guard case .column(let region, let ref, let z, let x) = node, statWalkers.wantsAttributes(caller.pid) else {
                let entries = try listing(of: node, inode: inode, after: offset, limit: max(limit, 0), request)
                let column = if case .column = node { true } else { false }
                if column { statWalkers.noteListing(by: caller.pid) }
                for entry in entries {
                    // Each entry looked up only once the one before it fitted.
                    let found = column || entry.isDot ? nil : try? self.entry(named: entry.name, in: node, caller: caller, request)
                    guard entry.put(found, into: add) else { return }
                }
                return
            }
            let dots = try dots(of: node, inode: inode, after: offset, request)
            for dot in dots { guard dot.put(nil, into: add) else { return } }
            let column = TileColumn(region: region, ref: ref, z: z, x: x, inode: inode)
            try putTiles(of: column, after: offset, limit: max(limit, 0), dots: dots.count, request, into: add)
        }
    }

    /// A tile column being listed.
    private struct TileColumn {
        var region: RegionID
        var ref: SourceRef
        var z: Int
        var x: Int
        var inode: Inode
    }

    /// The column's tiles after cookie `offset` that fit in a page of `limit` entries beside `dots` dots, each with
    /// its entry, put into `add` until it is full; the rows of the page after a full one are read ahead.
    private func putTiles(
        of column: TileColumn, after offset: Int64, limit: Int, dots: Int, _ request: Request, into add: PlusSink
    ) throws {
        let (region, z) = (column.region, column.z)
        let (_, source) = try request.source(region, column.ref)
        guard limit > dots, let columns = source.columns else { return }
        let after = source.row(Int(max(offset, 2) - 3), z: z)
        let (x, descending) = (column.x, source.tiles?.scheme == .tms)
        let read: @Sendable (Int, Int) throws -> ListingAhead.Rows = { [database] after, limit in
            try database.tileRowsWithSizes(columns, z: z, x: x, after: after, descending: descending, limit: limit)
        }
        let writes = database.writeCount
        let page = writes.map { ListingAhead.Page(column: column.inode, after: after, limit: limit - dots, writes: $0) }
        let rows = try page.flatMap(listingAhead.take) ?? read(after, limit - dots)
        if let writes, rows.count == limit - dots, let last = rows.last {
            readNextPage(ListingAhead.Page(column: column.inode, after: last.y, limit: limit, writes: writes), read)
        }
        var name = TileFileName(fileExtension: source.fileExtension)
        for row in rows {
            let y = source.row(row.y, z: z)
            // Outside the grid, or a row no inode can name: left out, as `listing` does.
            guard (0..<1 << z).contains(y), let tag = try? database.rowTag(.tile, row.id.rawValue),
                let inode = try? InodeCodec.encode(.tile(region, row.id, tag))
            else { continue }
            // A switched row's size is its current version's (`tileRowsWithSizes` reads the live row).
            let size = row.size ?? decodedSize(of: row.id, in: region, inode: inode)
            let entry = size.map { Entry(attributes: file(inode, 0o444, $0), freshness: .immutable) }
            guard name.with(y, { add($0, inode, .regularFile, entry, 3 + Int64(y)) }) else { return }
        }
    }

    /// Reads `page` with `read` on the listing's own thread (`ListingAhead`), under its write count: a write that
    /// ended meanwhile leaves nothing kept.
    private func readNextPage(
        _ page: ListingAhead.Page, _ read: @escaping @Sendable (_ after: Int, _ limit: Int) throws -> ListingAhead.Rows
    ) {
        listingAhead.schedule(page) { [database] in
            try? database.withOneSnapshot { () -> ListingAhead.Rows? in
                guard database.writeCount == page.writes else { return nil }
                let rows = try read(page.after, page.limit)
                return database.writeCount == page.writes ? rows : nil
            }
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
