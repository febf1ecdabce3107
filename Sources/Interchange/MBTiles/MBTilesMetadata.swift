import Foundation
import PackStore
import StyleModel

/// The `metadata` rows of an exported MBTiles file (spec 1.3): what the pack knows about one
/// tiled source, in the text forms the spec gives.
///
/// - `name`, `description`, `version`: the stored TileJSON's, else words naming the pack;
/// - `format`: `pbf` for vector tiles, else the tiles' own (`png`, `jpg`, `webp`);
/// - `bounds`: the region's bounding box within the source's bounds, within the tile grid;
///   `center`: the TileJSON's when it lies in them, else their middle at the middle zoom;
/// - `minzoom`, `maxzoom`: of the tiles written (the spec: the zooms the file has data for);
/// - `type`: `baselayer` for the pack's primary source, `overlay` for the others;
/// - `attribution`: the source's (the style's, else its TileJSON's), when it has one;
/// - `json` (vector only): `vector_layers` from the stored TileJSON; a source without one (inline
///   `tiles`) lists the layers the pack's style draws from it.
enum MBTilesMetadata {
    typealias Row = (name: String, value: String)

    static func rows(for target: TiledSourceFiles.Target, of pack: Pack, style: PackStyle, zooms: ClosedRange<Int>)
        -> [Row]
    {
        let tileJSON = target.source.tileJSON.flatMap(JSONValue.parse)
        let isVector = target.tiles.type == .vector
        let primary = style.primary.flatMap { style.sources.indices.contains($0) ? style.sources[$0].id : nil }
        let tiledSources = style.sources.filter { $0.tiles != nil && $0.columns != nil }.count
        let label = tiledSources > 1 ? "\(pack.name) \(target.source.id)" : pack.name
        let bounds = bounds(of: pack.definition?.area, within: target.tiles.bounds)
        var rows: [Row] = [
            ("name", tileJSON?["name"]?.string ?? label),
            ("format", isVector ? "pbf" : target.source.fileExtension),
            ("bounds", [bounds.west, bounds.south, bounds.east, bounds.north].map(text).joined(separator: ",")),
            ("center", center(tileJSON?["center"], in: bounds, zooms: zooms).map(text).joined(separator: ",")),
            ("minzoom", String(zooms.lowerBound)),
            ("maxzoom", String(zooms.upperBound)),
            ("type", primary == target.source.id ? "baselayer" : "overlay"),
            ("version", tileJSON?["version"]?.string ?? "1"),
            ("description", tileJSON?["description"]?.string ?? "source \(target.source.id) of PackFS pack \(pack.name)"),
        ]
        if let attribution = target.tiles.attribution { rows.append(("attribution", attribution)) }
        if isVector {
            let layers = tileJSON?["vector_layers"]?.array ?? drawnLayers(of: target.source.id, in: style.styleData)
            rows.append(("json", JSONValue.object(["vector_layers": .array(layers)]).compactText))
        }
        return rows
    }

    /// The region's bounding box (the world for a pack without a readable definition), cut to
    /// the source's bounds where they meet, latitudes clamped to the tile grid's.
    static func bounds(of area: RegionDefinition.Area?, within source: Bounds?) -> Bounds {
        let limit = ImportedTileJSON.mercatorLatitude
        var box = Bounds(west: -180, south: -limit, east: 180, north: limit)
        switch area {
        case .bounds(let bounds)?: box = bounds
        case .geometry(let geometry)?: box = geometry.bounds ?? box
        case nil: break
        }
        if let source {
            let cut = Bounds(
                west: max(box.west, source.west), south: max(box.south, source.south),
                east: min(box.east, source.east), north: min(box.north, source.north))
            if cut.west <= cut.east, cut.south <= cut.north { box = cut }
        }
        box.south = min(max(box.south, -limit), limit)
        box.north = min(max(box.north, -limit), limit)
        return box
    }

    /// Longitude, latitude and zoom of the default view.
    static func center(_ stored: JSONValue?, in bounds: Bounds, zooms: ClosedRange<Int>) -> [Double] {
        let middleZoom = Double(zooms.lowerBound + (zooms.upperBound - zooms.lowerBound) / 2)
        if let numbers = stored?.array?.compactMap(\.number), (2...3).contains(numbers.count),
            numbers.allSatisfy(\.isFinite),
            bounds.west <= numbers[0], numbers[0] <= bounds.east, bounds.south <= numbers[1], numbers[1] <= bounds.north
        {
            let zoom = numbers.count == 3 ? numbers[2].rounded(.down) : middleZoom
            return [numbers[0], numbers[1], min(max(zoom, Double(zooms.lowerBound)), Double(zooms.upperBound))]
        }
        return [(bounds.west + bounds.east) / 2, (bounds.south + bounds.north) / 2, middleZoom]
    }

    /// `{"id": layer, "fields": {}}` for each `source-layer` the style's layers draw from `source`.
    static func drawnLayers(of source: String, in style: Data) -> [JSONValue] {
        var names: [String] = []
        for layer in JSONValue.parse(style)?["layers"]?.array ?? [] where layer["source"]?.string == source {
            if let name = layer["source-layer"]?.string, !names.contains(name) { names.append(name) }
        }
        return names.map { .object(["id": .string($0), "fields": .object([:])]) }
    }

    /// A number as the spec's examples write it: whole numbers without a decimal point.
    static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
