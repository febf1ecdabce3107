import Foundation
import PackStore

/// A resource to fetch, under the URL it is stored by (as the style names it, resolved against its
/// document; `mapbox://` kept: `URLPolicy` makes the request URL).
public struct PlannedResource: Hashable, Sendable {
    public let url: String
    public let kind: ResourceKind

    public init(url: String, kind: ResourceKind) {
        self.url = url
        self.kind = kind
    }
}

/// What a style needs besides itself: the style walk of DESIGN section 4, by MapLibre's rules.
///
/// The walk is pure: it reads the style's bytes and fetches nothing. TileJSON documents, once
/// fetched, turn each `StyleSource` into a `TileSource` (`StyleSource.tileSource(tileJSON:)`).
/// Every URL is vetted here: a `file://` URL or an unresolvable plain path fails the walk with a
/// `DownloadError` naming it, so it is never fetched.
public struct StylePlan: Sendable {
    public let styleURL: String
    /// In download order, each URL once: for each source in style order its TileJSON (`url`), a
    /// geojson source's `data` URL or an image source's `url`; then each sprite sheet's four
    /// files; then every glyph range of every font stack (none when the style has no `glyphs`).
    public let resources: [PlannedResource]
    /// The vector, raster and raster-dem sources, in style order.
    public let tileSources: [StyleSource]
    public let sprites: [SpriteSheet]
    /// The font stacks symbol layers can ask for, in MapLibre's order.
    public let fontStacks: [[String]]

    /// Walks the style `data`, stored under `url` (relative references resolve against it).
    public init(style data: Data, url: String, includeIdeographs: Bool) throws {
        guard let json = JSONValue.parse(data) else {
            throw DownloadError.invalidJSON(url: url, reason: "style is not valid JSON")
        }
        guard json.object != nil else {
            throw DownloadError.invalidJSON(url: url, reason: "style is not a JSON object")
        }
        styleURL = url
        var resources: [PlannedResource] = []
        var tileSources: [StyleSource] = []
        for (id, source) in try Self.orderedSources(json, data: data, url: url) {
            switch try Self.declaration(id: id, source: source, styleURL: url) {
            case .tiled(let declared):
                tileSources.append(declared)
                if let tileJSON = declared.tileJSONURL {
                    resources.append(PlannedResource(url: tileJSON, kind: .source))
                }
            case .resource(let resource): resources.append(resource)
            case .nothing: break
            }
        }
        sprites = try SpriteSheet.sheets(in: json["sprite"], styleURL: url)
        resources += sprites.flatMap(\.resources)
        fontStacks = FontStacks.collect(layers: json["layers"])
        if let glyphs = try Self.glyphsTemplate(json["glyphs"], styleURL: url) {
            resources += Glyphs.resources(
                template: glyphs, fontStacks: fontStacks, includeIdeographs: includeIdeographs)
        }
        var seen = Set<String>()
        self.resources = resources.filter { seen.insert($0.url).inserted }
        self.tileSources = tileSources
    }

    /// The `sources` members in document order (JSONValue forgets it; `OrderedKeys` recovers it).
    private static func orderedSources(_ json: JSONValue, data: Data, url: String)
        throws -> [(String, JSONValue)]
    {
        guard let value = json["sources"], value != .null else { return [] }
        guard let sources = value.object else {
            throw DownloadError.invalidField(url: url, field: "sources", reason: "must be an object")
        }
        return OrderedKeys.keys(of: sources, member: "sources", in: data).compactMap { id in
            sources[id].map { (id, $0) }
        }
    }

    private enum Declaration {
        case tiled(StyleSource)
        case resource(PlannedResource)
        case nothing
    }

    /// One source: tiled sources are declared; a geojson `data` URL is a source resource and an
    /// image source's `url` an image. Video and unknown types are skipped, as MapLibre does.
    private static func declaration(id: String, source: JSONValue, styleURL: String) throws -> Declaration {
        let prefix = "sources.\(id)."
        guard source.object != nil, let type = source["type"]?.string else {
            throw DownloadError.invalidField(
                url: styleURL, field: prefix + "type", reason: "missing (a source is an object with a type)")
        }
        if let tiled = TileSourceType(rawValue: type) {
            return .tiled(try StyleSource(id: id, type: tiled, object: source, styleURL: styleURL))
        }
        switch (type, source[type == "geojson" ? "data" : "url"]) {
        case ("geojson", .string(let data)?):
            let url = try References.resolve(data, in: styleURL, field: prefix + "data")
            return .resource(PlannedResource(url: url, kind: .source))
        case ("geojson", .object?):
            return .nothing  // inline GeoJSON: stored with the style
        case ("geojson", _):
            throw DownloadError.invalidField(
                url: styleURL, field: prefix + "data", reason: "must be a URL or GeoJSON")
        case ("image", .string(let url)?):
            let absolute = try References.resolve(url, in: styleURL, field: prefix + "url")
            return .resource(PlannedResource(url: absolute, kind: .image))
        case ("image", _):
            throw DownloadError.invalidField(url: styleURL, field: prefix + "url", reason: "must be a URL")
        default:
            return .nothing
        }
    }

    private static func glyphsTemplate(_ value: JSONValue?, styleURL: String) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let template)?:
            return template.isEmpty ? nil : try References.resolve(template, in: styleURL, field: "glyphs")
        default:
            throw DownloadError.invalidField(url: styleURL, field: "glyphs", reason: "must be a URL template")
        }
    }
}
