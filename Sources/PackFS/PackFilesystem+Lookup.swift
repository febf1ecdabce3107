import FoundationEssentials
import PackStore
import StyleModel

/// Lookup: one name in one directory, answered with indexed queries (never a listing).
extension PackFilesystem {
    func child(named name: String, of parent: Node, _ request: Request) throws -> Node {
        switch parent {
        case .root:
            switch name {
            case "status.json": return .status
            case "packs": return .packs
            default:
                guard let web = webChild(named: name) else { throw FilesystemError.notFound }
                return web
            }
        case .packs: return try packsChild(named: name, request)
        case .pack(let region, let part): return try packChild(named: name, of: part, in: region, request)
        case .source(let region, let ref, .directory): return try sourceChild(named: name, in: region, ref, request)
        case .zoom(let region, let ref, let z): return try columnChild(named: name, in: region, ref, z: z, request)
        case .column(let region, let ref, let z, let x):
            return try tileChild(named: name, in: region, ref, z: z, x: x, request)
        case .fontStack(let region, let id): return try glyphChild(named: name, stack: id, in: region, request)
        case .status, .packList, .webFile, .rejection, .draft, .scratch, .patch, .source(_, _, .tileJSON),
            .source(_, _, .data), .tile, .resource:
            throw FilesystemError.notDirectory
        }
    }

    private func packsChild(named name: String, _ request: Request) throws -> Node {
        if name.hasSuffix(".error"), let rejection = rejections.file(named: String(name.dropLast(6))) {
            return .rejection(rejection.serial)
        }
        let packs = try database.packs()
        // Byte for byte, as the kernel names entries: by `==` an NFD spelling would find the NFC
        // pack and give its directory a second name (PackName).
        if name.hasSuffix(".region"), let pack = packs.first(where: { PackName.same($0.name + ".region", name) }) {
            request.found(pack)
            return .pack(pack.id, .regionFile)
        }
        if name.hasSuffix(".region"), let draft = drafts.draft(named: String(name.dropLast(7))) {
            return .draft(draft.serial)
        }
        if let pack = packs.first(where: { PackName.same($0.name, name) }) {
            request.found(pack)
            return .pack(pack.id, .directory)
        }
        if let upload = PatchUploads.packName(of: name).flatMap(uploads.file(named:)) { return .patch(upload.serial) }
        guard let scratch = scratches.file(named: name) else { throw FilesystemError.notFound }
        return .scratch(scratch.serial)
    }

    private func packChild(named name: String, of part: PackPart, in region: RegionID, _ request: Request)
        throws -> Node
    {
        // Fixed names need no layout: one made from the tiles (no style) costs a pass over the
        // index, and `cat progress.json` must not wait for it.
        if part == .directory, let fixed = Self.fixedPackParts[name] {
            _ = try request.pack(region)
            return .pack(region, fixed)
        }
        let layout = try request.layout(region)
        switch (part, name) {
        case (.directory, "style.json"):
            guard try holdsStyle(layout) else { throw FilesystemError.notFound }
            return .pack(region, .style)
        case (.directory, Self.webStyleName):
            guard webBase != nil, try holdsStyle(layout) else { throw FilesystemError.notFound }
            return .pack(region, .webStyle)
        case (.directory, _):
            guard let primary = layout.primary else { throw FilesystemError.notFound }
            return try zoomChild(named: name, in: region, SourceRef(index: primary, primary: true), request)
        case (.sources, _):
            guard let index = layout.sources.firstIndex(where: { $0.declared.directoryName == name }) else {
                throw FilesystemError.notFound
            }
            return .source(region, SourceRef(index: index, primary: false), .directory)
        case (.glyphs, _):
            if let stack = try request.fontStacks(region).first(where: { $0.name == name }) { return .fontStack(region, stack.id) }
            guard let id = vacancies.stack(region: region, named: name) else { throw FilesystemError.notFound }
            return .fontStack(region, id)
        case (.sprites, _):
            guard let file = layout.spriteFiles.first(where: { $0.name == name }),
                let id = try database.packResourceID(url: file.url, in: region)
            else { throw FilesystemError.notFound }
            return .resource(region, id, try database.rowTag(.resource, id.rawValue))
        case (.regionFile, _), (.style, _), (.webStyle, _), (.progress, _), (.coverage, _):
            throw FilesystemError.notDirectory
        }
    }

    /// In `sources/<id>/`: a tiled source's `tiles.json` and zooms, or a GeoJSON or image source's file.
    private func sourceChild(named name: String, in region: RegionID, _ ref: SourceRef, _ request: Request)
        throws -> Node
    {
        let (_, source) = try request.source(region, ref)
        if let file = source.declared.dataFileName {
            guard name == file else { throw FilesystemError.notFound }
            return .source(region, ref, .data)
        }
        if name == "tiles.json" { return .source(region, ref, .tileJSON) }
        return try zoomChild(named: name, in: region, ref, request)
    }

    /// `<z>/`: one probe for a tile with content at z (or the directory `rm` emptied).
    private func zoomChild(named name: String, in region: RegionID, _ ref: SourceRef, _ request: Request)
        throws -> Node
    {
        let (_, source) = try request.source(region, ref)
        guard let z = Self.coordinate(name), z <= InodeCodec.maxZoom, let columns = source.columns,
            try database.hasTiles(columns, z: z) || vacancies.holds(region: region, source: ref, z: z)
        else { throw FilesystemError.notFound }
        return .zoom(region, ref, z: z)
    }

    /// `<z>/<x>/`: one probe for a tile with content in the column (or the directory `rm` emptied).
    private func columnChild(named name: String, in region: RegionID, _ ref: SourceRef, z: Int, _ request: Request)
        throws -> Node
    {
        let (_, source) = try request.source(region, ref)
        guard let x = Self.coordinate(name), let columns = source.columns,
            try database.hasTiles(columns, z: z, x: x) || vacancies.holds(region: region, source: ref, z: z, x: x)
        else { throw FilesystemError.notFound }
        return .column(region, ref, z: z, x: x)
    }

    private func tileChild(
        named name: String, in region: RegionID, _ ref: SourceRef, z: Int, x: Int, _ request: Request
    ) throws -> Node {
        let key = try tileKey(named: name, in: region, ref, z: z, x: x, request)
        guard let id = try database.packTileID(key, in: region) else { throw FilesystemError.notFound }
        return .tile(region, id, try database.rowTag(.tile, id.rawValue))
    }

    /// A tile's entry from one read: the key proves membership and the content gives the exact size
    /// (kept for the read that usually follows).
    /// Tried: notify_store of the content after the reply; the reader's READ usually came first.
    func tileEntry(
        named name: String, in region: RegionID, _ ref: SourceRef, z: Int, x: Int, caller: Caller, _ request: Request
    ) throws -> Entry {
        try tileEntry(key: try tileKey(named: name, in: region, ref, z: z, x: x, request), in: region, caller: caller)
    }

    /// The entry of the tile `key` names in `region`, whose layout gave the key: `tileEntry(named:)`'s and
    /// `quickLookup`'s.
    private func tileEntry(key: TileKey, in region: RegionID, caller: Caller) throws -> Entry {
        if statWalkers.listed(caller.pid), let entry = try recordedEntry(key, in: region) {
            // `cp -r` and `tar` list too, and read what they look up: their next tiles are still read ahead.
            noteLookedUp(key, in: region, inode: entry.attributes.inode, sizeOnly: true, caller: caller)
            return entry
        }
        // A size already known needs no inflate, but not after a switch: the row's version, which
        // its inode and so its size depend on, must be read first.
        var known: UInt64?
        let switched = database.hasSwitchedRows
        guard
            let (id, content) = try database.servedTile(.key(key), in: region, wantsContent: { id in
                guard !switched else { return true }
                known = (try? InodeCodec.encode(.tile(region, id, .initial))).flatMap(cache.size)
                return known == nil
            })
        else { throw FilesystemError.notFound }
        let tag = try database.rowTag(.tile, id.rawValue)
        // A switch that committed between the two reads: the known size was the version before's.
        if tag != .initial { known = nil }
        let served = try content ?? (known == nil ? database.servedTile(.row(id), in: region)?.content : nil)
        let inode = try InodeCodec.encode(.tile(region, id, tag))
        guard let size = known.map(Int.init) ?? served.map({ remember($0, inode).count }) else { throw FilesystemError.stale }
        noteLookedUp(key, in: region, inode: inode, sizeOnly: known != nil, caller: caller)
        return Entry(attributes: file(inode, 0o444, size), freshness: .immutable)
    }

    /// Tells the read-ahead, when on, that `caller` looked up the tile `key` names (`sizeOnly`: its content was not read).
    private func noteLookedUp(_ key: TileKey, in region: RegionID, inode: Inode, sizeOnly: Bool, caller: Caller) {
        guard readAhead.isOn else { return }
        if sizeOnly { readAhead.claim(inode) }
        readAhead.looked(up: ReadAhead.Place(region: region, key: key), inode: inode, by: caller.pid) { [self] in
            readTile(ahead: $0)
        }
    }

    /// The entry of a tile whose size is recorded, from its row id and size alone, for a process that listed the
    /// column (`StatWalkers.listed`): it stats the names it read and reads few of them, so inflating each tile for
    /// a READ that seldom follows cost a `du` of a 1M-tile pack as much as listing 170,000 tiles. nil: no size
    /// recorded, or a row a switch changed (its version is read with its content), and the lookup reads the tile.
    private func recordedEntry(_ key: TileKey, in region: RegionID) throws -> Entry? {
        guard !database.hasSwitchedRows, let id = try database.packTileID(key, in: region),
            let size = try database.recordedSize(ofTile: id), try database.rowTag(.tile, id.rawValue) == .initial
        else { return nil }
        return Entry(attributes: file(try InodeCodec.encode(.tile(region, id, .initial)), 0o444, size), freshness: .immutable)
    }

    /// A cold tile's lookup, most of what a map's reads send, answered with no request, snapshot, memo or reply
    /// value around it: it needs one statement and one inflate, and on a host whose caches the inflate and the kernel
    /// empty between two lookups, every function a lookup passes through is fetched again from memory (about 30 ns
    /// a cache line; docs/benchmarks.md, "Where the gap was"). Only while the pack's view is
    /// kept with its layout, nothing reads ahead, and the name parses; else nil, and `lookup` answers as for any
    /// name (also when this fails: it says why).
    public func quickLookup(parent: Inode, name: UnsafeBufferPointer<UInt8>, caller: Caller) -> QuickLookup? {
        guard !readAhead.isOn, case .column(let region, let ref, let z, let x)? = InodeCodec.decode(parent),
            let generation = database.cacheGeneration,
            let layout = cache.view(of: region, generation: generation)?.usableLayout, layout.holds(ref),
            let key = layout.tileKey(atSource: ref.index, named: name, z: z, x: x)
        else { return nil }
        statWalkers.noteLookup(by: caller.pid)
        do {
            return .entry(try tileEntry(key: key, in: region, caller: caller))
        } catch FilesystemError.notFound {
            return .notFound
        } catch {
            return nil
        }
    }

    /// Reads a tile ahead of its lookup (`ReadAhead`) into the content cache, under the inode its
    /// lookup will give; nil when it is cached already, not in the pack, or unreadable.
    private func readTile(ahead place: ReadAhead.Place) -> Inode? {
        try? database.withOneSnapshot { () -> Inode? in
            let switched = database.hasSwitchedRows
            let uncached = { (id: TileID) in
                switched || (try? InodeCodec.encode(.tile(place.region, id, .initial))).flatMap(self.cache.content) == nil
            }
            guard let (id, content) = try database.servedTile(.key(place.key), in: place.region, wantsContent: uncached),
                let content
            else { return nil }
            let inode = try InodeCodec.encode(.tile(place.region, id, try database.rowTag(.tile, id.rawValue)))
            cache.store(content, for: inode)
            return inode
        }
    }

    /// The stored key `name` names in column z/x of the source (StyleModel's: TMS rows flipped).
    private func tileKey(
        named name: String, in region: RegionID, _ ref: SourceRef, z: Int, x: Int, _ request: Request
    ) throws -> TileKey {
        let layout = try request.layout(region)
        guard layout.holds(ref) else { throw FilesystemError.stale }
        guard let key = layout.tileKey(atSource: ref.index, named: name, z: z, x: x) else { throw FilesystemError.notFound }
        return key
    }

    private func glyphChild(named name: String, stack: ResourceID, in region: RegionID, _ request: Request)
        throws -> Node
    {
        if let held = try request.fontStacks(region).first(where: { $0.id == stack }) {
            guard let range = held.ranges.first(where: { $0.file.name == name }) else { throw FilesystemError.notFound }
            return .resource(region, range.id, try database.rowTag(.resource, range.id.rawValue))
        }
        // A stack emptied by `rm` (or whose lowest range went), by the name it had.
        let layout = try request.layout(region)
        guard let stackName = vacancies.stackName(region: region, id: stack),
            let file = layout.fontStacks.first(where: { $0.name == stackName })?.files.first(where: { $0.name == name }),
            let id = try database.packResourceID(url: file.url, in: region)
        else { throw FilesystemError.notFound }
        return .resource(region, id, try database.rowTag(.resource, id.rawValue))
    }

    /// Whether the pack shows `style.json`: stored and still a member (`rm` drops the membership, but
    /// the tree follows the stored style so `rm -r` finds the rest); a synthetic one while it has tiles.
    func holdsStyle(_ layout: PackLayout) throws -> Bool {
        if layout.isSynthetic { return !layout.sources.isEmpty }
        guard let url = layout.style?.url else { return false }
        return try database.packResourceID(url: url, in: layout.pack.id) != nil
    }

    /// The names in a pack's directory that need no layout to look up.
    static let fixedPackParts: [String: PackPart] = [
        "progress.json": .progress, "sources": .sources, "glyphs": .glyphs, "sprites": .sprites,
        "coverage.geojson": .coverage,
    ]

    /// A z, x or y written the canonical way (digits, no leading zero, no sign), or nil.
    static func coordinate(_ text: String) -> Int? { coordinate(text.utf8) }

    /// As `coordinate(_:)`, of bytes: every tile lookup parses two or three of these.
    static func coordinate<Digits: Collection<UInt8>>(_ digits: Digits) -> Int? {
        // Comparisons, not ranges' `contains`: that left a generic witness call per tile unspecialized.
        let count = digits.count
        guard count >= 1, count <= 8, digits.first != UInt8(ascii: "0") || count == 1 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}

/// Font stacks: those of the pack's style (`PackLayout.fontStacks`), each with the ranges the pack holds.
extension PackFilesystem {
    struct FontStack {
        var name: String
        /// The lowest row id among the stack's ranges: names the stack's directory.
        var id: ResourceID
        var ranges: [(file: PackLayout.GlyphFile, id: ResourceID)]
    }

    /// The font stacks of `layout` the pack holds ranges of, each named and sorted by its lowest row.
    static func fontStacks(_ layout: PackLayout, in database: OfflineDatabase) throws -> [FontStack] {
        guard !layout.fontStacks.isEmpty else { return [] }
        let held = Dictionary(
            try database.packResources(of: .glyphs, in: layout.pack.id).map { ($0.url, $0.id) },
            uniquingKeysWith: { a, _ in a })
        let stacks = layout.fontStacks.compactMap { stack -> FontStack? in
            let ranges = stack.files.compactMap { file in held[file.url].map { (file: file, id: $0) } }
            guard let lowest = ranges.map(\.id).min(by: { $0.rawValue < $1.rawValue }) else { return nil }
            return FontStack(name: stack.name, id: lowest, ranges: ranges)
        }
        return stacks.sorted { $0.id.rawValue < $1.id.rawValue }
    }

    /// The directory name of the stack named by row `id` (or emptied by `rm`, by the name it had).
    func fontStackName(_ id: ResourceID, in region: RegionID, _ request: Request) throws -> String? {
        try request.fontStacks(region).first(where: { $0.id == id })?.name ?? vacancies.stackName(region: region, id: id)
    }
}
