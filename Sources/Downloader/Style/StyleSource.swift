import Foundation
import PackStore

/// A tiled source as the style declares it: inline `tiles`, or a TileJSON `url` to fetch first.
public struct StyleSource: Equatable, Sendable {
    public let id: String
    public let type: TileSourceType
    /// The TileJSON to fetch first (as stored: resolved against the style, `mapbox://` kept), or
    /// nil when the style lists the tiles inline.
    public let tileJSONURL: String?
    /// The style's `tileSize` (512 when unset): only the style's value counts, as in MapLibre
    /// Native, which renders the pack.
    public let tileSize: Int
    let styleURL: String
    let styleFields: TileSetFields

    /// The source with its tiles known: for inline sources from the style alone, for the others
    /// from the bytes of the TileJSON at `tileJSONURL`. The style's own `tiles`, `scheme`,
    /// `minzoom`, `maxzoom`, `bounds` and `attribution` override the TileJSON's.
    public func tileSource(tileJSON: Data? = nil) throws -> TileSource {
        var fields = styleFields
        if let url = tileJSONURL {
            fields = styleFields.overriding(try tileJSONFields(tileJSON, url: url))
        }
        guard let template = fields.template else {
            throw DownloadError.invalidField(
                url: tileJSONURL ?? styleURL, field: tileJSONURL == nil ? "sources.\(id).tiles" : "tiles",
                reason: "no tile URL template")
        }
        return TileSource(
            id: id, type: type, urlTemplate: template, scheme: fields.scheme ?? .xyz, tileSize: tileSize,
            minZoom: fields.minZoom ?? 0, maxZoom: fields.maxZoom ?? 22, bounds: fields.bounds,
            attribution: fields.attribution)
    }

    private func tileJSONFields(_ data: Data?, url: String) throws -> TileSetFields {
        guard let data else {
            throw DownloadError.invalidJSON(url: url, reason: "the TileJSON of source \"\(id)\" is needed")
        }
        guard let json = JSONValue.parse(data) else {
            throw DownloadError.invalidJSON(url: url, reason: "TileJSON is not valid JSON")
        }
        guard json.object != nil else {
            throw DownloadError.invalidJSON(url: url, reason: "TileJSON is not a JSON object")
        }
        var fields = try TileSetFields(json, document: url)
        if MapboxURL.isMapbox(url), let template = fields.template {
            // Mapbox's TileJSON lists https URLs with the token; the key keeps mapbox:// form.
            fields.template = MapboxURL.canonicalTileTemplate(template, type: type, tileSize: tileSize)
        }
        return fields
    }

    /// Reads a vector, raster or raster-dem source object of the style at `styleURL`.
    init(id: String, type: TileSourceType, object: JSONValue, styleURL: String) throws {
        let prefix = "sources.\(id)."
        self.id = id
        self.type = type
        self.styleURL = styleURL
        tileSize = try Self.tileSize(object["tileSize"]) {
            DownloadError.invalidField(
                url: styleURL, field: prefix + "tileSize", reason: "must be a positive number")
        }
        styleFields = try TileSetFields(object, document: styleURL, prefix: prefix)
        switch object["url"] {
        case nil, .null?:
            tileJSONURL = nil
            guard styleFields.template != nil else {
                throw DownloadError.invalidField(
                    url: styleURL, field: prefix + "tiles", reason: "needs url or tiles")
            }
        case .string(let url)?:
            tileJSONURL = try References.resolve(url, in: styleURL, field: prefix + "url")
        default:
            throw DownloadError.invalidField(url: styleURL, field: prefix + "url", reason: "must be a string")
        }
    }

    private static func tileSize(_ value: JSONValue?, _ error: () -> DownloadError) throws -> Int {
        guard let value, value != .null else { return 512 }
        guard let number = value.number, number >= 1, number <= 65535 else { throw error() }
        return Int(number)
    }
}
