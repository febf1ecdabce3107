import PackStore

/// What a node of the mount is, decoded from its inode number alone (no table: squashfuse style).
enum Node: Hashable, Sendable {
    case root, status, packs
    /// `packs.json` (`--web-base`): every pack's name, bounds and progress, for the web page.
    case packList
    /// A file of the web page at the root (`--web-base`), by its index in `WebPage.files`.
    case webFile(UInt32)
    /// `packs/<name>.error`, by its rejection's serial (the name may belong to no pack).
    case rejection(UInt32)
    /// `packs/<name>.region` being written for a name no pack has yet, by its draft's serial.
    case draft(UInt32)
    /// Any other file in `packs/` (`sed -i`'s temporary file), by its serial (`ScratchFiles`).
    case scratch(UInt32)
    /// `packs/<name>.patch` while a patch is copied there, by its serial (`PatchUploads`).
    case patch(UInt32)
    case pack(RegionID, PackPart)
    /// `sources/<id>/` (or its `tiles.json`, `data.geojson` or image) of the source at `source`.
    case source(RegionID, SourceRef, SourcePart)
    /// `<z>/` under a pack (primary view) or under `sources/<id>/`.
    case zoom(RegionID, SourceRef, z: Int)
    /// `<z>/<x>/`.
    case column(RegionID, SourceRef, z: Int, x: Int)
    /// `<z>/<x>/<y>.<ext>`: a row of `tiles` (which fixes template, z, x and y), in one of its versions.
    case tile(RegionID, TileID, RowTag)
    /// A glyph range or sprite file: a row of `resources`, in one of its versions.
    case resource(RegionID, ResourceID, RowTag)
    /// `glyphs/<fontstack>/`, named by the lowest row id of its glyph ranges in the pack.
    case fontStack(RegionID, ResourceID)

    var region: RegionID? {
        switch self {
        case .root, .status, .packs, .packList, .webFile, .rejection, .draft, .scratch, .patch: return nil
        case .pack(let r, _), .source(let r, _, _), .zoom(let r, _, _), .column(let r, _, _, _),
            .tile(let r, _, _), .resource(let r, _, _), .fontStack(let r, _):
            return r
        }
    }
}

/// Which version of a row a tile or resource node names. Each version of a refreshed row gets its own inode, as a file
/// replaced by `rename` does, so the kernel never holds one size for another's bytes. 0: unchanged this mount; versions
/// 1, 2, 3, 4, 5... take tags 1, 2, 3, 4, 1...: each is forgotten at the switch that ends it, so four never meet.
struct RowTag: Hashable, Sendable {
    static let count: UInt64 = 4
    static let initial = RowTag(raw: 0)

    let raw: UInt64

    init(version: Int64) { raw = version <= 0 ? 0 : UInt64((version - 1) % Int64(Self.count)) + 1 }

    fileprivate init(raw: UInt64) { self.raw = raw }

    func names(_ version: Int64) -> Bool { self == RowTag(version: version) }
}

/// The nodes that hang directly off one pack, one inode each.
enum PackPart: UInt64, Sendable, CaseIterable {
    case directory, regionFile, style, progress, sources, glyphs, sprites
    /// `web-style.json` (`--web-base`): style.json with every URL absolute under the web base.
    case webStyle
    /// `coverage.geojson`: the union of the primary source's tiles per zoom (`PackCoverage`).
    case coverage
}

/// A source's directory and its data file (`StyleSource.dataFileName`: `tiles.json`, `data.geojson`, `image.<ext>`).
enum SourcePart: UInt64, Sendable {
    case directory, tileJSON, data
}

/// A source by its index in `Style.sources`, seen at the pack's top (`primary`) or under
/// `sources/<id>/`: distinct inodes, so the kernel never sees one directory under two parents.
struct SourceRef: Hashable, Sendable {
    var index: Int
    var primary: Bool
}

// Inode bit layout (64 bits, most significant first):
//
//   63..60  kind      0 top, 1 pack part, 2 source, 3 zoom dir, 4 column dir, 5 tile,
//                     6 resource file, 7 font stack dir, 8-11 tile and 12-15 resource file of
//                     row tags 1-4 (`RowTag`: a row a switch changed during this mount)
//   59..36  region    regions.id (24 bits: ids up to 16,777,215); 0 for kind 0
//   35..0   payload   by kind:
//     top          1 root (FUSE_ROOT_ID), 2 status.json, 3 packs/, 4 packs.json,
//                  2^32 + n: packs/<name>.error of rejection number n
//                  2^33 + n: packs/<name>.region being written, draft number n (no pack yet)
//                  3 * 2^32 + n: any other file in packs/, scratch file number n
//                  4 * 2^32 + n: packs/<name>.patch being copied, upload number n
//                  5 * 2^32 + n: the web page's file number n at the root (`WebPage.files`)
//     pack part    PackPart raw value
//     source, zoom, column
//                  35 primary view | 34..29 source index (0-63) | 28..24 z (0-31) | 23..0 x
//                  (source: bits 1..0 are SourcePart instead of x)
//     tile, resource, font stack
//                  the row id (36 bits: up to 68,719,476,735)
//
// A tile is named by its row, not by z/x/y: 5 + 24 + 24 bits of coordinates leave no room for a
// large region id, and a row id is what reading the tile needs anyway.
enum InodeCodec {
    static let regionBits: UInt64 = 24
    static let payloadBits: UInt64 = 36
    static let maxRegion: Int64 = (1 << 24) - 1
    static let maxRow: Int64 = (1 << 36) - 1
    static let maxSources = 64
    static let maxZoom = 31
    static let maxColumn = (1 << 24) - 1
    /// `packs/`, the parent of every name the write side changes.
    static let packs = Inode(rawValue: 3)

    private enum Kind: UInt64 {
        case top, pack, source, zoom, column, tile, resource, fontStack
    }

    /// The inode of `node`; `.io` when a number does not fit the layout above.
    static func encode(_ node: Node) throws -> Inode {
        switch node {
        case .root: return .root
        case .status: return Inode(rawValue: 2)
        case .packs: return packs
        case .packList: return Inode(rawValue: 4)
        case .webFile(let index): return Inode(rawValue: 5 << 32 | UInt64(index))
        case .rejection(let serial): return Inode(rawValue: 1 << 32 | UInt64(serial))
        case .draft(let serial): return Inode(rawValue: 2 << 32 | UInt64(serial))
        case .scratch(let serial): return Inode(rawValue: 3 << 32 | UInt64(serial))
        case .patch(let serial): return Inode(rawValue: 4 << 32 | UInt64(serial))
        case .pack(let region, let part): return try make(.pack, region, part.rawValue)
        case .source(let region, let ref, let part):
            return try make(.source, region, try coordinates(ref, z: 0, x: 0) | part.rawValue)
        case .zoom(let region, let ref, let z): return try make(.zoom, region, try coordinates(ref, z: z, x: 0))
        case .column(let region, let ref, let z, let x):
            return try make(.column, region, try coordinates(ref, z: z, x: x))
        case .tile(let region, let id, let tag): return try make(.tile, tag, region, try row(id.rawValue))
        case .resource(let region, let id, let tag): return try make(.resource, tag, region, try row(id.rawValue))
        case .fontStack(let region, let id): return try make(.fontStack, region, try row(id.rawValue))
        }
    }

    /// The pack of a node inside one (nil for the top's), from the kind and region bits alone.
    static func region(of inode: Inode) -> RegionID? {
        guard inode.rawValue >> 60 != Kind.top.rawValue else { return nil }
        return regionBitsOf(inode.rawValue)
    }

    /// The node `inode` names, or nil for a number this codec never makes.
    static func decode(_ inode: Inode) -> Node? {
        let raw = inode.rawValue
        let region = regionBitsOf(raw)
        let payload = raw & ((1 << payloadBits) - 1)
        guard let kind = Kind(rawValue: raw >> 60) else {
            let tagged = (raw >> 60) - 8  // 8...15: tiles and resources of tags 1...4
            let tag = RowTag(raw: tagged % RowTag.count + 1)
            return tagged < RowTag.count ? .tile(region, TileID(rawValue: Int64(payload)), tag)
                : .resource(region, ResourceID(rawValue: Int64(payload)), tag)
        }
        let ref = SourceRef(index: Int((payload >> 29) & 0x3F), primary: payload >> 35 == 1)
        let z = Int((payload >> 24) & 0x1F)
        let x = Int(payload & 0xFF_FFFF)
        switch kind {
        case .top:
            guard region.rawValue == 0 else { return nil }
            if payload >> 32 == 1 { return .rejection(UInt32(truncatingIfNeeded: payload)) }
            if payload >> 32 == 2 { return .draft(UInt32(truncatingIfNeeded: payload)) }
            if payload >> 32 == 3 { return .scratch(UInt32(truncatingIfNeeded: payload)) }
            if payload >> 32 == 4 { return .patch(UInt32(truncatingIfNeeded: payload)) }
            if payload >> 32 == 5 { return .webFile(UInt32(truncatingIfNeeded: payload)) }
            return [1: Node.root, 2: .status, 3: .packs, 4: .packList][payload]
        case .pack: return PackPart(rawValue: payload).map { .pack(region, $0) }
        case .source:
            guard z == 0, !ref.primary, let part = SourcePart(rawValue: payload & 0xFF_FFFF) else { return nil }
            return .source(region, ref, part)
        case .zoom: return x == 0 ? .zoom(region, ref, z: z) : nil
        case .column: return .column(region, ref, z: z, x: x)
        case .tile: return .tile(region, TileID(rawValue: Int64(payload)), .initial)
        case .resource: return .resource(region, ResourceID(rawValue: Int64(payload)), .initial)
        case .fontStack: return .fontStack(region, ResourceID(rawValue: Int64(payload)))
        }
    }

    private static func regionBitsOf(_ raw: UInt64) -> RegionID {
        RegionID(Int64((raw >> payloadBits) & ((1 << regionBits) - 1)))
    }

    private static func make(_ kind: Kind, _ region: RegionID, _ payload: UInt64) throws -> Inode {
        try make(kind.rawValue, region, payload)
    }

    /// A tile's or resource's inode: its own kind for tag 0, one of 8-15 for a switched row's.
    private static func make(_ kind: Kind, _ tag: RowTag, _ region: RegionID, _ payload: UInt64) throws -> Inode {
        guard tag != .initial else { return try make(kind, region, payload) }
        return try make((kind == .tile ? 7 : 11) + tag.raw, region, payload)
    }

    private static func make(_ kind: UInt64, _ region: RegionID, _ payload: UInt64) throws -> Inode {
        guard (0...maxRegion).contains(region.rawValue) else {
            throw FilesystemError.io("region id \(region.rawValue) does not fit in an inode (max \(maxRegion))")
        }
        return Inode(rawValue: kind << 60 | UInt64(region.rawValue) << payloadBits | payload)
    }

    private static func coordinates(_ ref: SourceRef, z: Int, x: Int) throws -> UInt64 {
        guard (0..<maxSources).contains(ref.index), (0...maxZoom).contains(z), (0...maxColumn).contains(x) else {
            throw FilesystemError.io("source \(ref.index) z \(z) x \(x) does not fit in an inode")
        }
        return (ref.primary ? 1 << 35 : 0) | UInt64(ref.index) << 29 | UInt64(z) << 24 | UInt64(x)
    }

    private static func row(_ id: Int64) throws -> UInt64 {
        guard (0...maxRow).contains(id) else { throw FilesystemError.io("row id \(id) does not fit in an inode") }
        return UInt64(id)
    }
}
