import Foundation
import PackStore

/// What a pack's stored style says about its tree: the tiled sources in style order with their
/// tile templates (from the stored TileJSON or the style's inline `tiles`), the glyphs template
/// and the sprite sheets. Read from the store, never from the network; a source whose TileJSON is
/// not stored yet has no tiles to show.
struct PackLayout: Sendable {
    struct Source: Sendable {
        var id: String
        var type: String
        /// The stored TileJSON's URL (nil: the style lists `tiles` inline).
        var tileJSONURL: String?
        /// `minzoom`, `maxzoom`, `bounds`, `attribution` (and `tiles`, `scheme`): the style's
        /// own values over the TileJSON's.
        var fields: [String: JSONValue]
        /// Where the tiles are keyed; nil until the template is known.
        var columns: TileColumnSet?
        var isTMS: Bool
        /// pbf, png, jpg or webp: one per source, so the style's `tiles` template can name it.
        var fileExtension: String
    }

    var pack: Pack
    var style: JSONValue?
    var sources: [Source] = []
    /// Index in `sources` of the primary source: the first vector source, else the first tiled one.
    var primary: Int?
    var glyphs: GlyphTemplate?
    /// (sheet id, base URL): `default` when `sprite` is a string.
    var sprites: [(id: String, url: String)] = []

    static let tiledTypes: Set<String> = ["vector", "raster", "raster-dem"]
    /// The TileJSON fields a source takes into the style (DESIGN section 2), where the style
    /// sets none of its own.
    static let inlinedKeys = ["tiles", "scheme", "minzoom", "maxzoom", "bounds", "attribution"]

    static func load(_ pack: Pack, from database: OfflineDatabase) throws -> PackLayout {
        var layout = PackLayout(pack: pack)
        guard let styleURL = pack.definition?.styleURL,
            let data = try database.resource(url: styleURL)?.data.decoded(), let style = JSONValue.parse(data)
        else { return layout }
        layout.style = style
        let sources = OrderedKeys.keys(of: style["sources"]?.object ?? [:], member: "sources", in: data)
        for id in sources.prefix(InodeCodec.maxSources) {
            guard let object = style["sources"]?[id], let type = object["type"]?.string, tiledTypes.contains(type)
            else { continue }
            layout.sources.append(try source(id: id, type: type, object: object, styleURL: styleURL, pack, database))
        }
        layout.primary = layout.sources.firstIndex { $0.type == "vector" && $0.columns != nil }
            ?? layout.sources.firstIndex { $0.columns != nil }
        if let template = style["glyphs"]?.string, !template.isEmpty {
            layout.glyphs = GlyphTemplate(template: URLText.resolve(template, against: styleURL))
        }
        layout.sprites = sprites(style["sprite"], styleURL: styleURL)
        return layout
    }

    private static func source(
        id: String, type: String, object: JSONValue, styleURL: String, _ pack: Pack, _ database: OfflineDatabase
    ) throws -> Source {
        var fields = object.object ?? [:]
        var document = styleURL
        var tileJSONURL: String?
        if let url = object["url"]?.string {
            let resolved = URLText.resolve(url, against: styleURL)
            tileJSONURL = resolved
            if object["tiles"] == nil { document = resolved }
            let stored = try database.resource(url: resolved)?.data.decoded().flatMap(JSONValue.parse)
            for key in inlinedKeys where fields[key] == nil { fields[key] = stored?[key] }
        }
        fields["url"] = nil
        var source = Source(
            id: id, type: type, tileJSONURL: tileJSONURL, fields: fields, columns: nil,
            isTMS: fields["scheme"]?.string == "tms", fileExtension: type == "vector" ? "pbf" : "png")
        if let first = fields["tiles"]?.array?.first?.string {
            var template = URLText.resolve(first, against: document)
            if object["tiles"] == nil, let url = object["url"]?.string, url.hasPrefix("mapbox://") {
                // Keyed as the downloader (and MapLibre) key them: mapbox://tiles/..., no token.
                let tileSize = object["tileSize"]?.number.map { Int($0) } ?? 512
                template = MapboxTileTemplate.canonical(template, isVector: type == "vector", tileSize: tileSize)
            }
            let ratio = template.contains("{ratio}") && (pack.definition?.pixelRatio ?? 1) > 1 ? 2 : 1
            let columns = TileColumnSet(region: pack.id, urlTemplate: template, pixelRatio: ratio)
            source.columns = columns
            if type != "vector" {
                let sample = try database.sampleTile(columns).flatMap { try TileFormat.content(of: $0.data) }
                source.fileExtension = TileFormat.fileExtension(of: sample, fallback: "png")
            }
        }
        return source
    }

    private static func sprites(_ value: JSONValue?, styleURL: String) -> [(id: String, url: String)] {
        switch value {
        case .string(let url)? where !url.isEmpty:
            return [("default", URLText.resolve(url, against: styleURL))]
        case .array(let sheets)?:
            return sheets.compactMap { sheet in
                guard let id = sheet["id"]?.string, !id.isEmpty, !id.contains("/"), let url = sheet["url"]?.string
                else { return nil }
                return (id, URLText.resolve(url, against: styleURL))
            }
        default:
            return []
        }
    }

    /// The source at `ref.index`, if it has tiles (the primary view exists only for the primary).
    func source(_ ref: SourceRef) -> Source? {
        guard sources.indices.contains(ref.index), !ref.primary || ref.index == primary else { return nil }
        return sources[ref.index]
    }

    /// The four files of each sprite sheet: name in `sprites/` and stored URL.
    var spriteFiles: [(name: String, url: String)] {
        sprites.flatMap { sheet in
            [".json", ".png", "@2x.json", "@2x.png"].map { (sheet.id + $0, URLText.inserting($0, into: sheet.url)) }
        }
    }
}
