import Basics
import FoundationEssentials
import PackStore

/// What the mount keeps about its tree (`ContentCache`, `LayoutCache`, the kernel's `KernelCache`) and what each change
/// makes it forget: its own pack's entries only. Shared by the filesystem and the pack manager, which needs no
/// reference to the filesystem. Pack states are cached by the store, which sees every write.
public final class TreeCaches: Sendable {
    let database: OfflineDatabase
    let contents = ContentCache()
    let layouts = LayoutCache()
    /// The kernel's caches; nil where there is no kernel (the model's unit tests).
    let kernel: (any KernelCache)?

    public init(database: OfflineDatabase, kernel: (any KernelCache)?) {
        self.database = database
        self.kernel = kernel
    }

    /// The layout of `pack`: parsed at most once a second while it downloads, once for good otherwise
    /// (only a download changes its style and TileJSONs; every other change forgets the layout).
    func layout(of pack: Pack) throws -> PackLayout {
        let settled = (try? database.status(of: pack.id).state != .active) ?? false
        return try layouts.layout(for: pack, complete: settled) { try PackLayout.load($0, from: database) }
    }

    /// Forgets one pack's cached sizes, contents and layout; the kernel is told by the callers.
    public func forgetPack(_ region: RegionID) {
        contents.removeAll(of: region)
        layouts.remove(region)
        // Last: a request that read the old layout read the count before this, so the view it
        // keeps is under a count that no longer holds (`PackView`).
        database.bumpCacheGeneration()
    }

    /// A refresh replaced bytes under row ids that one or more packs share. Forgets those packs, the changed files' old
    /// names (`RowTag`), and the listings and generated files of each (a changed resource may be its style); then
    /// waits, bounded, so the next reader to see `complete` reads the new bytes. Not on FUSE threads.
    public func contentSwitched(_ switched: SwitchedContent) {
        let documents = Set(switched.changedResources.map(\.region)).union([switched.region])
        for region in documents.union(switched.changedTiles.map(\.region)) { forgetPack(region) }
        guard let kernel else { return }
        var batch = NotificationBatch(kernel: kernel)
        for member in switched.changedTiles {
            let version = switched.tileVersions[member.id]
            batch.add(.tile(member.region, member.id, version.map { RowTag(version: $0 - 1) } ?? tag(.tile, member.id.rawValue)))
            if version != nil, let key = switched.tileKeys[member.id] { forgetNames(of: key, in: member.region, &batch) }
        }
        for member in switched.changedResources {
            let version = switched.resourceVersions[member.id]
            batch.add(.resource(member.region, member.id,
                                version.map { RowTag(version: $0 - 1) } ?? tag(.resource, member.id.rawValue)))
            if version != nil, let url = switched.resourceURLs[member.id] { forgetNames(of: url, in: member.region, &batch) }
        }
        for region in documents {
            for part in [PackPart.style, .webStyle, .directory, .glyphs, .sprites] { batch.add(.pack(region, part)) }
        }
        batch.send()
        kernel.settle(within: 1)
    }

    /// A redefinition dropped these members. The kernel keeps tile names an hour, so each is forgotten
    /// by name wherever it shows; a resource's inode is forgotten. Throws when the layout cannot be
    /// read: the kernel may then serve old names until they time out, which the caller must report.
    public func membersLeft(_ region: RegionID, tiles: [TileKey], resources: [String]) throws {
        forgetPack(region)
        guard let kernel else { return }
        let layout = try layout(of: try database.pack(id: region))
        for key in tiles {
            for (ref, source) in Self.sources(showing: key, in: layout) {
                let y = source.row(key.y, z: key.z)
                guard let column = try? InodeCodec.encode(.column(region, ref, z: key.z, x: key.x)) else { continue }
                kernel.invalidate(parent: column, name: "\(y).\(source.fileExtension)")
            }
        }
        for url in resources {
            // A resource no longer stored has no content left to serve.
            guard let id = try database.resource(url: url)?.id,
                let inode = try? InodeCodec.encode(.resource(region, id, tag(.resource, id.rawValue)))
            else { continue }
            kernel.invalidate(inode: inode)
        }
    }

    /// A patch changed tiles of one tile set: before this returns the kernel forgets each changed row, emptied tiles'
    /// names and the listings that gained tiles, wherever the set shows. Batched: a whole pack's patch names millions.
    public func tilesChanged(_ changes: TileChanges) throws {
        let region = changes.columns.region
        forgetPack(region)
        changes.otherPacks.forEach(forgetPack)
        guard let kernel else { return }
        let key = TileKey(urlTemplate: changes.columns.urlTemplate, pixelRatio: changes.columns.pixelRatio, z: 0, x: 0, y: 0)
        let shown = Self.sources(showing: key, in: try layout(of: try database.pack(id: region)))
        var batch = NotificationBatch(kernel: kernel)
        for id in changes.changed { batch.add(.tile(region, id, tag(.tile, id.rawValue))) }
        for place in changes.deleted {
            for (ref, source) in shown {
                let (z, x) = (Int(place.z), Int(place.x))
                batch.add(parent: .column(region, ref, z: z, x: x), name: "\(source.row(Int(place.y), z: z)).\(source.fileExtension)")
            }
        }
        var directories = Set<Node>([.pack(region, .directory)])
        for place in changes.added {
            for (ref, _) in shown {
                directories.insert(.zoom(region, ref, z: Int(place.z)))
                directories.insert(.column(region, ref, z: Int(place.z), x: Int(place.x)))
            }
        }
        directories.forEach { batch.add($0) }
        for other in changes.otherPacks {
            for id in changes.sharedRows { batch.add(.tile(other, id, tag(.tile, id.rawValue))) }
        }
        batch.send()
    }

    /// Where a tile key shows in the tree: every source keyed by its template and pixel ratio,
    /// as itself under `sources/` and, for the primary source, at the top of the pack too.
    static func sources(showing key: TileKey, in layout: PackLayout) -> [(SourceRef, PackLayout.Source)] {
        var found: [(SourceRef, PackLayout.Source)] = []
        for (index, source) in layout.sources.enumerated() {
            guard let columns = source.columns, columns.urlTemplate == key.urlTemplate,
                columns.pixelRatio == key.pixelRatio
            else { continue }
            found.append((SourceRef(index: index, primary: false), source))
            if index == layout.primary { found.append((SourceRef(index: index, primary: true), source)) }
        }
        return found
    }
}

/// Parsed layouts by pack, kept a second while downloading: the TileJSON and first raster tile (fixing the extension)
/// come moments after the style. One thread at a time parses a pack's layout, the others wait or take an expired one:
/// parsing is the dearest thing a lookup does (docs/benchmarks.md, "Designs measured and set aside").
final class LayoutCache: @unchecked Sendable {  // `entries`, `loading` and `generation` are guarded by `condition`
    static let lifetime: TimeInterval = 1
    private struct Entry {
        var layout: PackLayout
        var loaded: Date
        /// Whether the pack was settled when read: then it is kept until `remove`. One read while
        /// downloading is read again once settled, however young: the TileJSON may have come after.
        var complete: Bool
    }
    private enum Claim {
        case kept(PackLayout)
        case load(generation: Int)
    }
    private let condition = Condition()
    private var entries: [RegionID: Entry] = [:]
    /// Packs whose layout a thread is parsing now.
    private var loading: Set<RegionID> = []
    /// Counts `remove`s: a parse that began before one does not keep its result.
    private var generation = 0

    func layout(for pack: Pack, complete: Bool, load: (Pack) throws -> PackLayout) throws -> PackLayout {
        let loadingGeneration: Int
        switch claim(pack, complete: complete) {
        case .kept(let layout): return layout
        case .load(let generation): loadingGeneration = generation
        }
        defer {
            condition.withLock {
                loading.remove(pack.id)
                condition.broadcast()
            }
        }
        let layout = try load(pack)
        condition.withLock {
            if generation == loadingGeneration { entries[pack.id] = Entry(layout: layout, loaded: Date(), complete: complete) }
        }
        return layout
    }

    /// A layout to use now, or the caller's turn to parse one.
    private func claim(_ pack: Pack, complete: Bool) -> Claim {
        LockTally.note(condition)
        return condition.withLock {
            while true {
                let entry = entries[pack.id].flatMap { $0.layout.pack == pack && $0.complete == complete ? $0 : nil }
                if let entry, complete || Date().timeIntervalSince(entry.loaded) < Self.lifetime { return .kept(entry.layout) }
                if !loading.contains(pack.id) {
                    loading.insert(pack.id)
                    return .load(generation: generation)
                }
                if let entry { return .kept(entry.layout) }  // expired: another thread is reading it again
                condition.wait()
            }
        }
    }

    func remove(_ region: RegionID) {
        condition.withLock {
            entries[region] = nil
            generation += 1
        }
    }

    /// The layout kept for `region`, if any (whatever its age).
    func cached(_ region: RegionID) -> PackLayout? { condition.withLock { entries[region]?.layout } }
}

/// Invalidations sent synchronously every `size`, so a million never sit in memory at once.
/// Nodes that do not fit an inode were never shown, so nothing of theirs is cached.
struct NotificationBatch {
    static let size = 4096
    let kernel: any KernelCache
    private var inodes: [Inode] = []
    private var entries: [(parent: Inode, name: String)] = []

    init(kernel: any KernelCache) { self.kernel = kernel }

    mutating func add(_ node: Node) {
        guard let inode = try? InodeCodec.encode(node) else { return }
        inodes.append(inode)
        if inodes.count >= Self.size { send() }
    }

    mutating func add(parent: Node, name: String) {
        guard let inode = try? InodeCodec.encode(parent) else { return }
        entries.append((inode, name))
        if entries.count >= Self.size { send() }
    }

    mutating func send() {
        guard !inodes.isEmpty || !entries.isEmpty else { return }
        kernel.invalidateNow(inodes: inodes, entries: entries)
        inodes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }
}
