import Basics
import FoundationEssentials
import PackStore

/// The minimal style of a pack with tiles but no usable style (docs/design.md §2): one source per
/// tile set, in template order, drawn so every tile shows. Vector layers are named by the stored
/// TileJSON's `vector_layers`, else read from one of its tiles.
enum SyntheticStyle {
    /// What the style says about one tile set.
    struct Part {
        var id: String
        var set: TileColumnSet
        var type: TileSourceType
        /// The stored TileJSON naming this template; nil lists it inline, with the zooms held.
        var tileJSONURL: String?
        var zooms: ClosedRange<Int>?
        var tileSize: Int
        var layers: [String]
    }

    static func make(for pack: Pack, from database: some PackDocuments) throws -> PackStyle? {
        let url = pack.definition?.styleURL ?? "https://packfs.invalid/region-\(pack.id.rawValue)/style.json"
        let sets = try database.packTileSets(of: pack.id).filter { isNameable($0.urlTemplate, in: url) }
        guard !sets.isEmpty else { return nil }
        let tileJSONs = try storedTileJSONs(of: pack, database)
        let ids = SourceID.derive(sets.map(\.urlTemplate))
        var parts: [Part] = []
        for (set, id) in zip(sets, ids).prefix(Style.maxSources) {
            parts.append(try part(set, id: id, tileJSON: tileJSONs[set.urlTemplate], database))
        }
        let data = document(name: pack.name, parts)
        guard let style = try? Style(data: data, url: url) else { return nil }
        return try PackStyle(style: style, data: data, synthetic: true, of: pack, database)
    }

    /// Whether a style at `styleURL` may name `template` as stored: `References`' rule, and absolute,
    /// so the made style always reads and keys its tiles as stored.
    private static func isNameable(_ template: String, in styleURL: String) -> Bool {
        (try? References.resolve(template, in: styleURL, field: "tiles")) == template
    }

    /// The pack's stored TileJSONs by their first template, resolved as the model resolves it.
    private static func storedTileJSONs(of pack: Pack, _ database: some PackDocuments) throws
        -> [String: (url: String, json: JSONValue)]
    {
        var found: [String: (url: String, json: JSONValue)] = [:]
        for (_, url) in try database.packResources(of: .source, in: pack.id) {
            guard let data = try? database.resource(url: url)?.data.decoded(), let json = JSONValue.parse(data),
                let first = json["tiles"]?.array?.first?.string,
                let template = URLString.resolve(first, against: url)
            else { continue }
            found[template] = found[template] ?? (url, json)
        }
        return found
    }

    private static func part(_ set: TileColumnSet, id: String, tileJSON: (url: String, json: JSONValue)?,
        _ database: some PackDocuments) throws -> Part
    {
        let sample = try database.sampleTile(set).flatMap { try? ServedTile.content(of: $0.data) }
        let isImage = TileFormat.fileExtension(of: sample, fallback: "pbf") != "pbf"
        let zooms = try database.tileZooms(set)
        var layers = tileJSON?.json["vector_layers"]?.array?.compactMap { $0["id"]?.string } ?? []
        if layers.isEmpty, !isImage, let sample { layers = VectorTileLayers.names(in: sample) }
        return Part(
            id: id, set: set, type: isImage ? .raster : .vector, tileJSONURL: tileJSON?.url,
            zooms: zooms.first.flatMap { low in zooms.last.map { low...$0 } },
            tileSize: isImage ? (sample.flatMap(pngWidth) ?? 256) : 512, layers: isImage ? [] : layers)
    }

    /// A PNG's width (its IHDR chunk), the raster tile size where it is one MapLibre takes.
    private static func pngWidth(_ data: Data) -> Int? {
        let bytes = Array(data.prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        return [256, 512].contains(width) ? width : nil
    }
}

extension SyntheticStyle {
    /// The style document; `sources` is written by hand so its members keep the parts' order
    /// (the model reads source order from the bytes, and JSONValue sorts keys).
    static func document(name: String, _ parts: [Part]) -> Data {
        let sources = parts.map { JSONValue.string($0.id).compactText + ":" + source($0).compactText }
        var layers: [JSONValue] = [
            .object([
                "id": .string("background"), "type": .string("background"),
                "paint": .object(["background-color": .string("#f8f4f0")]),
            ])
        ]
        for (index, part) in parts.enumerated() { layers += self.layers(part, colour: palette[index % palette.count]) }
        let head = "{\"version\":8,\"name\":" + JSONValue.string(name).compactText
        return Data((head + ",\"sources\":{" + sources.joined(separator: ",") + "},\"layers\":"
            + JSONValue.array(layers).compactText + "}").utf8)
    }

    private static let palette = ["#3b6ea8", "#b5523b", "#4e8f4a", "#8a5aa8", "#a8873b", "#3b9aa8"]

    private static func source(_ part: Part) -> JSONValue {
        var fields: [String: JSONValue] = ["type": .string(part.type.rawValue), "tileSize": .number(Double(part.tileSize))]
        if let url = part.tileJSONURL {
            fields["url"] = .string(url)
        } else {
            fields["tiles"] = .array([.string(part.set.urlTemplate)])
            if let zooms = part.zooms {
                fields["minzoom"] = .number(Double(zooms.lowerBound))
                fields["maxzoom"] = .number(Double(zooms.upperBound))
            }
        }
        return .object(fields)
    }

    /// Polygons filled, lines stroked, points dotted: every feature of every layer shows.
    private static func layers(_ part: Part, colour: String) -> [JSONValue] {
        guard part.type == .vector else {
            return [.object(["id": .string(part.id), "type": .string("raster"), "source": .string(part.id)])]
        }
        return part.layers.flatMap { layer -> [JSONValue] in
            func styled(_ kind: String, _ geometry: String, _ paint: [String: JSONValue]) -> JSONValue {
                .object([
                    "id": .string("\(part.id)/\(layer)/\(kind)"), "type": .string(kind), "source": .string(part.id),
                    "source-layer": .string(layer), "filter": .array([.string("=="), .string("$type"), .string(geometry)]),
                    "paint": .object(paint),
                ])
            }
            return [
                styled("fill", "Polygon", ["fill-color": .string(colour), "fill-opacity": .number(0.3)]),
                styled("line", "LineString", ["line-color": .string(colour), "line-width": .number(1)]),
                styled("circle", "Point", ["circle-color": .string(colour), "circle-radius": .number(2)]),
            ]
        }
    }
}
