import Basics
import FoundationEssentials
import PackStore

/// A resource a style names, under the URL it is stored by (as the style names it, resolved
/// against its document; `mapbox://` kept: the downloader's `URLPolicy` makes the request URL).
public struct StyleResource: Hashable, Sendable {
    public let url: String
    public let kind: ResourceKind
    /// What its bytes must be (`ContentCheck`): by default what `kind` says; GeoJSON for a
    /// geojson source's `data`, which is stored as a `.source` too. nil: not checked.
    public let content: ContentKind?

    public init(url: String, kind: ResourceKind, content: ContentKind? = nil) {
        self.url = url
        self.kind = kind
        self.content = content ?? ContentKind(resource: kind)
    }
}

/// A style document read by MapLibre's rules (docs/design.md §4): what it needs besides itself, and how
/// a pack's files from it are named. Every URL is vetted here (a `file://` URL or an unresolvable path
/// fails with a `StyleError` naming it), so the mount shows nothing the downloader would not fetch.
public struct Style: Sendable {
    /// Sources with something to store, at most: a tree inode has 6 bits for the source.
    public static let maxSources = 64
    /// Font stacks, at most: each costs 97 (or 256) glyph files; real styles name a few dozen.
    public static let maxFontStacks = 256

    public let url: String
    /// The document's top-level members (the mount rewrites them into its `style.json`).
    public let members: [String: JSONValue]
    /// The sources with something to store, in document order: tiled sources, GeoJSON sources
    /// whose `data` is a URL, image sources. Inline GeoJSON, video and unknown types have none.
    public let sources: [StyleSource]
    public let sprites: [SpriteSheet]
    /// nil when the style sets no `glyphs`.
    public let glyphs: GlyphTemplate?
    /// The font stacks symbol layers can ask for, in MapLibre's order.
    public let fontStacks: [[String]]

    /// Reads the style `data`, stored under `url` (relative references resolve against it).
    public init(data: Data, url: String) throws {
        let (json, sourceOrder): (JSONValue, [String]?)
        do {
            (json, sourceOrder) = try JSONValue.parsing(data, keepingOrderOf: "sources")
        } catch {
            throw StyleError.invalidJSON(url: url, reason: "style is not valid JSON (\(error)); got \(ContentDescription.of(data))")
        }
        guard let members = json.object else {
            throw StyleError.invalidJSON(url: url, reason: "style is not a JSON object; got \(ContentDescription.of(data))")
        }
        self.url = url
        self.members = members
        sources = try Self.sources(json, order: sourceOrder ?? [], url: url)
        sprites = try SpriteSheet.sheets(in: json["sprite"], styleURL: url)
        glyphs = try GlyphTemplate(json["glyphs"], styleURL: url)
        fontStacks = FontStacks.collect(layers: json["layers"])
        guard fontStacks.count <= Self.maxFontStacks else {
            throw StyleError.invalidField(
                url: url, field: "layers",
                reason: "\(fontStacks.count) distinct font stacks (text-font); PackFS fetches at most \(Self.maxFontStacks)")
        }
        for stack in fontStacks {
            try FileName.check(FontStacks.name(of: stack), field: "layers (text-font \(stack))", document: url)
        }
    }

    /// Refuses a document without MapLibre's `"version": 8`, `sources` and `layers`: a TileJSON or
    /// GeoJSON given as a region's style would otherwise make a `complete` pack with nothing in it.
    public func requireStyleDocument() throws {
        let missing = Self.missingMembers(members)
        guard !missing.isEmpty else { return }
        throw StyleError.notAStyle(url: url, missing: missing, looksLike: Self.kind(of: members))
    }

    /// The members a style must have that `members` lacks (also `ContentCheck`'s rule).
    static func missingMembers(_ members: [String: JSONValue]) -> [String] {
        var missing: [String] = []
        if members["version"]?.number != 8 { missing.append("\"version\": 8") }
        if members["sources"]?.object == nil { missing.append("\"sources\"") }
        if members["layers"]?.array == nil { missing.append("\"layers\"") }
        return missing
    }

    /// What a document that is no style looks like, where its members say it.
    static func kind(of members: [String: JSONValue]) -> String? {
        if members["tiles"] != nil || members["tilejson"] != nil { return "a TileJSON" }
        if let type = members["type"]?.string, ["FeatureCollection", "Feature"].contains(type) || members["coordinates"] != nil {
            return "GeoJSON"
        }
        let entries = members.values.compactMap(\.object)
        if !entries.isEmpty, entries.count == members.count,
            entries.allSatisfy({ $0["x"] != nil && $0["y"] != nil && $0["width"] != nil })
        {
            return "a sprite index"
        }
        return nil
    }

    /// The tiled sources, in document order.
    public var tileSources: [StyleSource] { sources.filter { $0.tileType != nil } }

    /// What the style needs besides itself, each URL once, in download order: each source's TileJSON,
    /// GeoJSON data or image; each sprite sheet's four files; every glyph range of every font stack.
    public func resources(includeIdeographs: Bool) -> [StyleResource] {
        var resources = sources.compactMap(\.resource)
        resources += sprites.flatMap { $0.files.map(\.resource) }
        if let glyphs {
            let ranges = GlyphTemplate.ranges(includeIdeographs: includeIdeographs)
            for stack in fontStacks {
                resources += ranges.map { StyleResource(url: glyphs.url(fontStack: stack, range: $0), kind: .glyphs) }
            }
        }
        var seen = Set<String>()
        return resources.filter { seen.insert($0.url).inserted }
    }

    /// The pack's primary source (docs/design.md §2), given each source's tiles where known (same
    /// order as `sources`): the first vector source, else the first tiled one.
    public static func primary(of tiles: [TileSource?]) -> Int? {
        tiles.firstIndex { $0?.type == .vector } ?? tiles.firstIndex { $0 != nil }
    }

    /// The `sources` members in document `order` (`JSONValue` forgets it); those storing nothing left out.
    private static func sources(_ json: JSONValue, order: [String], url: String) throws -> [StyleSource] {
        guard let value = json["sources"], value != .null else { return [] }
        guard let objects = value.object else {
            throw StyleError.invalidField(url: url, field: "sources", reason: "must be an object")
        }
        // With no twins, `order` names each member of `objects` once.
        try refuseTwins(order, url: url)
        var sources: [StyleSource] = []
        for id in order {
            guard let object = objects[id], let source = try StyleSource(id: id, object: object, styleURL: url)
            else { continue }
            try FileName.check(id, field: "sources.\(id)", document: url)
            sources.append(source)
        }
        guard sources.count <= maxSources else {
            throw StyleError.invalidField(
                url: url, field: "sources",
                reason: "\(sources.count) sources with tiles or data; PackFS keeps at most \(maxSources)")
        }
        return sources
    }

    /// Two source ids differing only in Unicode normalisation are equal `String`s, so the parsed
    /// document keeps one and the mount would show one directory under two names: refused (MapLibre keeps both).
    private static func refuseTwins(_ ids: [String], url: String) throws {
        // Keyed by `String`, so canonically equal ids meet; `ids` holds each byte spelling once.
        var first: [String: String] = [:]
        for id in ids {
            guard let twin = first[id] else {
                first[id] = id
                continue
            }
            throw StyleError.invalidField(
                url: url, field: "sources",
                reason: "ids \"\(twin)\" and \"\(id)\" differ only in Unicode normalisation (NFC and NFD)")
        }
    }
}
