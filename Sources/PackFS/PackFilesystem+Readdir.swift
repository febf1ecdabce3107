import FoundationEssentials
import PackStore
import StyleModel

/// Listings. Cookies are stable: `.` is 1, `..` is 2, any other derives from what the entry names, not its position, so
/// a growing listing resumes where it left off. Tile columns and rows are read a page at a time from the index.
extension PackFilesystem {
    typealias Child = (name: String, node: Node, cookie: Int64)

    func listing(of node: Node, inode: Inode, after offset: Int64, limit: Int, _ request: Request) throws
        -> [DirectoryEntry]
    {
        var entries = try dots(of: node, inode: inode, after: offset, request)
        let wanted = limit - entries.count
        guard wanted > 0 else { return Array(entries.prefix(limit)) }
        for child in try children(of: node, after: max(offset, 2), limit: wanted, request) {
            // A row no inode can name (an app's id of -5 or 2^40) is left out rather than failing
            // the whole listing; a lookup of its name fails alone with EIO.
            guard let childInode = try? InodeCodec.encode(child.node) else { continue }
            let kind: Attributes.Kind = Self.isDirectory(child.node) ? .directory : .regularFile
            entries.append(DirectoryEntry(name: child.name, inode: childInode, kind: kind, cookie: child.cookie))
        }
        return entries
    }

    /// `.` and `..` where `offset` has not passed them, once `node` is checked to still be a directory. Later pages of
    /// a tile column skip the check (it reads the pack's state, on thousands of pages): one that went lists no rows.
    func dots(of node: Node, inode: Inode, after offset: Int64, _ request: Request) throws -> [DirectoryEntry] {
        if case .column = node, offset >= 2 { return [] }
        _ = try attributes(of: node, inode: inode, request)
        var entries: [DirectoryEntry] = []
        if offset < 1 { entries.append(DirectoryEntry(name: ".", inode: inode, kind: .directory, cookie: 1)) }
        if offset < 2 {
            let parent = try InodeCodec.encode(Self.parent(of: node))
            entries.append(DirectoryEntry(name: "..", inode: parent, kind: .directory, cookie: 2))
        }
        return entries
    }

    /// Up to `limit` children with a cookie above `offset`, by cookie.
    private func children(of node: Node, after offset: Int64, limit: Int, _ request: Request) throws -> [Child] {
        let all: [Child]
        switch node {
        case .root: all = [("status.json", .status, 3), ("packs", .packs, 4)] + webChildren()
        case .packs: all = try packsChildren()
        case .pack(let region, .directory): all = try packChildren(region, request)
        case .pack(let region, .sources):
            all = try request.layout(region).sources.enumerated().map { index, source in
                let ref = SourceRef(index: index, primary: false)
                return (source.declared.directoryName, .source(region, ref, .directory), Int64(3 + index))
            }
        case .pack(let region, .glyphs):
            // Left out, as in `listing`, before its cookie could overflow.
            all = try request.fontStacks(region).filter { (0...InodeCodec.maxRow).contains($0.id.rawValue) }.map {
                ($0.name, .fontStack(region, $0.id), 3 + $0.id.rawValue)
            }
        case .pack(let region, .sprites): all = try spriteChildren(region, request)
        case .source(let region, let ref, .directory): all = try sourceChildren(region, ref, request)
        case .zoom(let region, let ref, let z):
            return try columnChildren(region, ref, z: z, after: offset, limit: limit, request)
        case .column(let region, let ref, let z, let x):
            return try tileChildren(region, ref, z: z, x: x, after: offset, limit: limit, request)
        case .fontStack(let region, let id): all = try rangeChildren(region, stack: id, request)
        default: throw FilesystemError.notDirectory
        }
        return Array(all.filter { $0.cookie > offset }.sorted { $0.cookie < $1.cookie }.prefix(limit))
    }

    private func packsChildren() throws -> [Child] {
        var children: [Child] = []
        let packs = try database.packs()
        // Left out, as in `listing`, before its slot could overflow.
        for pack in packs where (0...InodeCodec.maxRegion).contains(pack.id.rawValue) {
            let slot = 3 + 2 * pack.id.rawValue
            children.append((pack.name + ".region", .pack(pack.id, .regionFile), slot))
            children.append((pack.name, .pack(pack.id, .directory), slot + 1))
        }
        // After every pack slot (24-bit region ids): error files, then drafts for names no pack has.
        let packNames = Set(packs.map(\.name))
        for draft in drafts.all where !packNames.contains(draft.name) {
            children.append((draft.name + ".region", .draft(draft.serial), (1 << 41) + Int64(draft.serial)))
        }
        for scratch in scratches.all where !packNames.contains(scratch.name) {
            children.append((scratch.name, .scratch(scratch.serial), (1 << 42) + Int64(scratch.serial)))
        }
        for upload in uploads.all {
            children.append((upload.name + PatchUploads.suffix, .patch(upload.serial), (1 << 43) + Int64(upload.serial)))
        }
        for rejection in rejections.all {
            children.append((rejection.name + ".error", .rejection(rejection.serial), (1 << 40) + Int64(rejection.serial)))
        }
        return children
    }

    private func packChildren(_ region: RegionID, _ request: Request) throws -> [Child] {
        let layout = try request.layout(region)
        // web-style.json before style.json: it is made from the style and goes with it, so
        // `rm -r`, which unlinks in listing order, removes it first instead of finding it gone.
        var children: [Child] = []
        if try holdsStyle(layout) {
            if webBase != nil { children.append((Self.webStyleName, .pack(region, .webStyle), 3)) }
            children.append(("style.json", .pack(region, .style), 4))
        }
        children += [
            ("progress.json", .pack(region, .progress), 5), ("sources", .pack(region, .sources), 6),
            ("glyphs", .pack(region, .glyphs), 7), ("sprites", .pack(region, .sprites), 8),
        ]
        if let primary = layout.primary {
            children += try zoomChildren(region, SourceRef(index: primary, primary: true), base: 9, request)
        }
        // After every zoom's slot (9 + 31).
        children.append(("coverage.geojson", .pack(region, .coverage), 41))
        return children
    }

    /// A tiled source's `tiles.json` (stored or generated) and zooms; a GeoJSON or image source's file.
    private func sourceChildren(_ region: RegionID, _ ref: SourceRef, _ request: Request) throws -> [Child] {
        let (_, source) = try request.source(region, ref)
        let held = try source.declared.url.map { try database.packResourceID(url: $0, in: region) != nil } ?? true
        if let file = source.declared.dataFileName {
            return held ? [(file, .source(region, ref, .data), 3)] : []
        }
        let tileJSON: [Child] = held ? [("tiles.json", .source(region, ref, .tileJSON), 3)] : []
        return tileJSON + (try zoomChildren(region, ref, base: 4, request))
    }

    private func zoomChildren(_ region: RegionID, _ ref: SourceRef, base: Int64, _ request: Request) throws -> [Child] {
        guard let columns = try request.source(region, ref).1.columns else { return [] }
        return try database.tileZooms(columns).filter { (0...InodeCodec.maxZoom).contains($0) }.map {
            (String($0), .zoom(region, ref, z: $0), base + Int64($0))
        }
    }

    private func columnChildren(
        _ region: RegionID, _ ref: SourceRef, z: Int, after offset: Int64, limit: Int, _ request: Request
    ) throws -> [Child] {
        guard let columns = try request.source(region, ref).1.columns else { return [] }
        // Columns outside the zoom's grid (a foreign database's) are not listed: no tile path
        // names them, and their offsets would not fit.
        let inGrid = try database.tileColumns(columns, z: z, after: Int(offset - 3), limit: limit).filter {
            (0..<1 << z).contains($0)
        }
        return inGrid.map { (String($0), .column(region, ref, z: z, x: $0), 3 + Int64($0)) }
    }

    private func tileChildren(
        _ region: RegionID, _ ref: SourceRef, z: Int, x: Int, after offset: Int64, limit: Int, _ request: Request
    ) throws -> [Child] {
        let (_, source) = try request.source(region, ref)
        guard let columns = source.columns else { return [] }
        let lastY = Int(offset - 3)  // the XYZ row of the last entry already listed (-1: none)
        let rows = try database.tileRows(
            columns, z: z, x: x, after: source.row(lastY, z: z), descending: source.tiles?.scheme == .tms, limit: limit)
        return try rows.compactMap { row in
            let y = source.row(row.y, z: z)
            guard (0..<1 << z).contains(y) else { return nil }  // outside the grid, as columns above
            return ("\(y).\(source.fileExtension)", .tile(region, row.id, try database.rowTag(.tile, row.id.rawValue)), 3 + Int64(y))
        }
    }

    private func spriteChildren(_ region: RegionID, _ request: Request) throws -> [Child] {
        try request.layout(region).spriteFiles.enumerated().compactMap { index, file in
            try database.packResourceID(url: file.url, in: region).map {
                (file.name, .resource(region, $0, try database.rowTag(.resource, $0.rawValue)), 3 + Int64(index))
            }
        }
    }

    private func rangeChildren(_ region: RegionID, stack: ResourceID, _ request: Request) throws -> [Child] {
        let stacks = try request.fontStacks(region)
        // An emptied stack (or one whose lowest range went) is found by the name it had.
        let vacated = vacancies.stackName(region: region, id: stack)
        guard let stack = stacks.first(where: { $0.id == stack }) ?? stacks.first(where: { $0.name == vacated }) else {
            if vacated != nil { return [] }
            throw FilesystemError.stale
        }
        return try stack.ranges.map { file, id in
            (file.name, .resource(region, id, try database.rowTag(.resource, id.rawValue)), 3 + Int64(file.start))
        }
    }

    static func isDirectory(_ node: Node) -> Bool {
        switch node {
        case .root, .packs, .zoom, .column, .fontStack: return true
        case .pack(_, let part): return [.directory, .sources, .glyphs, .sprites].contains(part)
        case .source(_, _, let part): return part == .directory
        case .status, .packList, .webFile, .rejection, .draft, .scratch, .patch, .tile, .resource: return false
        }
    }

    static func parent(of node: Node) -> Node {
        switch node {
        case .root, .status, .packs, .packList, .webFile: return .root
        case .rejection, .draft, .scratch, .patch, .pack(_, .directory), .pack(_, .regionFile): return .packs
        case .pack(let region, _): return .pack(region, .directory)
        case .source(let region, _, _): return .pack(region, .sources)
        case .zoom(let region, let ref, _):
            return ref.primary ? .pack(region, .directory) : .source(region, ref, .directory)
        case .column(let region, let ref, let z, _): return .zoom(region, ref, z: z)
        case .fontStack(let region, _): return .pack(region, .glyphs)
        case .tile(let region, _, _), .resource(let region, _, _): return .pack(region, .directory)
        }
    }
}
