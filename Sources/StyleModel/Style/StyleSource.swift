import Basics
import FoundationEssentials
import PackStore

/// The style source types whose data comes in tiles.
public enum TileSourceType: String, Sendable {
    case vector
    case raster
    case rasterDEM = "raster-dem"
}

/// A source as the style declares it, one with something to store: tiled (inline `tiles`, or a
/// TileJSON `url` to fetch first), GeoJSON whose `data` is a URL, or an image.
public struct StyleSource: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case tiled(TileSourceType)
        case geojson
        case image

        var isTiled: Bool { if case .tiled = self { true } else { false } }
    }

    public let id: String
    public let kind: Kind
    /// The TileJSON (nil for inline `tiles`), GeoJSON `data` or image `url`, resolved against the
    /// style and vetted (`mapbox://` kept).
    public let url: String?
    /// The source object as the style writes it (the mount rewrites it for its `style.json`).
    public let object: [String: JSONValue]
    /// The style's `tileSize` (512 when unset): only the style's counts, as in MapLibre Native.
    public let tileSize: Int
    let styleURL: String
    let styleFields: TileSetFields

    public var tileType: TileSourceType? {
        if case .tiled(let type) = kind { return type }
        return nil
    }

    /// The source's directory in a pack's `sources/`: its id, escaped (`FileName`).
    public var directoryName: String { FileName.escape(id) }

    /// `data.geojson` for GeoJSON, `image.<png|jpg|webp>` (from the URL's path) for an image; nil for
    /// a tiled source, whose directory holds `tiles.json` and its tiles.
    public var dataFileName: String? {
        switch kind {
        case .tiled: return nil
        case .geojson: return "data.geojson"
        case .image:
            let path = URLString.splitQuery(url ?? "").head.lowercased()
            let known = ["jpg": "jpg", "jpeg": "jpg", "webp": "webp"]
            return "image." + (path.split(separator: ".").last.flatMap { known[String($0)] } ?? "png")
        }
    }

    /// The resource `url` names (a TileJSON or GeoJSON is kind `.source`); nil for inline `tiles`.
    public var resource: StyleResource? {
        guard let url else { return nil }
        switch kind {
        case .tiled: return StyleResource(url: url, kind: .source, content: .tileJSON)
        case .geojson: return StyleResource(url: url, kind: .source, content: .geoJSON)
        case .image: return StyleResource(url: url, kind: .image, content: .image)
        }
    }

    /// The tiled source with its tiles known, from the style alone or the TileJSON at `url`. The style's
    /// own `tiles`, `scheme`, `minzoom`, `maxzoom`, `bounds` and `attribution` override the TileJSON's.
    public func tileSource(tileJSON: Data? = nil) throws -> TileSource {
        guard let type = tileType else {
            throw StyleError.invalidField(url: styleURL, field: "sources.\(id).type", reason: "not a tiled source")
        }
        var fields = styleFields
        if let url {
            fields = styleFields.overriding(try tileJSONFields(tileJSON, url: url, type: type))
        }
        guard let template = fields.template else {
            throw StyleError.invalidField(
                url: url ?? styleURL, field: url == nil ? "sources.\(id).tiles" : "tiles",
                reason: "no tile URL template")
        }
        return TileSource(
            id: id, type: type, urlTemplate: template, scheme: fields.scheme ?? .xyz, tileSize: tileSize,
            minZoom: fields.minZoom ?? 0, maxZoom: fields.maxZoom ?? 22, bounds: fields.bounds,
            attribution: fields.attribution, encoding: fields.encoding)
    }

    private func tileJSONFields(_ data: Data?, url: String, type: TileSourceType) throws -> TileSetFields {
        guard let data else {
            throw StyleError.invalidJSON(url: url, reason: "the TileJSON of source \"\(id)\" is needed")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parsing(data)
        } catch {
            throw StyleError.invalidJSON(url: url, reason: "TileJSON is not valid JSON (\(error)); got \(ContentDescription.of(data))")
        }
        guard json.object != nil else {
            throw StyleError.invalidJSON(url: url, reason: "TileJSON is not a JSON object; got \(ContentDescription.of(data))")
        }
        var fields = try TileSetFields(json, document: url)
        if MapboxURL.isMapbox(url), let template = fields.template {
            // Mapbox's TileJSON lists https URLs with the token; the key keeps mapbox:// form.
            fields.template = MapboxURL.canonicalTileTemplate(template, type: type, tileSize: tileSize)
        }
        return fields
    }

    /// Reads source `id` of the style at `styleURL`; nil for a source with nothing to store
    /// (inline GeoJSON; video and unknown types, which MapLibre skips too).
    init?(id: String, object: JSONValue, styleURL: String) throws {
        let prefix = "sources.\(id)."
        guard let members = object.object, let type = object["type"]?.string else {
            throw StyleError.invalidField(
                url: styleURL, field: prefix + "type", reason: "missing (a source is an object with a type)")
        }
        guard let kind = try Self.kind(type, object, prefix: prefix, styleURL: styleURL) else { return nil }
        self.id = id
        self.kind = kind
        self.object = members
        self.styleURL = styleURL
        // Only a tiled source's fields describe tiles (a GeoJSON `maxzoom` is its tiling's own).
        let error = StyleError.invalidField(
            url: styleURL, field: prefix + "tileSize", reason: "must be a number from 1 to 65535")
        tileSize = kind.isTiled
            ? Int(try TileSetFields.number(object["tileSize"], in: 1...65535) { error } ?? 512) : 512
        styleFields = kind.isTiled ? try TileSetFields(object, document: styleURL, prefix: prefix) : TileSetFields()
        url = try Self.url(of: kind, object, fields: styleFields, prefix: prefix, styleURL: styleURL)
    }

    /// The kind of a source of `type`; nil when it has nothing to store.
    private static func kind(_ type: String, _ object: JSONValue, prefix: String, styleURL: String) throws -> Kind? {
        if let tiled = TileSourceType(rawValue: type) { return .tiled(tiled) }
        switch (type, object["data"]) {
        case ("geojson", .string?): return .geojson
        case ("geojson", .object?): return nil  // inline GeoJSON: stored with the style
        case ("geojson", _):
            throw StyleError.invalidField(url: styleURL, field: prefix + "data", reason: "must be a URL or GeoJSON")
        case ("image", _): return .image
        default: return nil
        }
    }

    /// The URL the declaration names (see `url`).
    private static func url(of kind: Kind, _ object: JSONValue, fields: TileSetFields, prefix: String, styleURL: String)
        throws -> String?
    {
        let field = kind == .geojson ? "data" : "url"
        switch (kind, object[field]) {
        case (.tiled, nil), (.tiled, .null?):
            guard fields.template != nil else {
                throw StyleError.invalidField(url: styleURL, field: prefix + "tiles", reason: "needs url or tiles")
            }
            return nil
        case (_, .string(let url)?):
            return try References.resolve(url, in: styleURL, field: prefix + field)
        default:
            throw StyleError.invalidField(url: styleURL, field: prefix + field, reason: "must be a URL")
        }
    }
}
