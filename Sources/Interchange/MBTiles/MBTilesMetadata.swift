import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// The `metadata` rows of an exported MBTiles file (spec 1.3) for one tiled source, extent and layers as
/// `ExportedSource` reads them; zooms those of the tiles written, `agg_tiles_hash` martin's hash of them. A pack
/// imported from an MBTiles file writes that file's rows again (`keptKey`), but for those made here (`madeHere`).
enum MBTilesMetadata {
    typealias Row = (name: String, value: String)

    /// The imported file's metadata rows, kept in the pack's TileJSON (an object of texts).
    static let keptKey = "mbtiles_metadata"
    /// Rows made from the tiles written, never kept from an imported file.
    static let madeHere: Set<String> = [
        "format", "bounds", "center", "minzoom", "maxzoom", "agg_tiles_hash", "agg_tiles_hash_before_apply",
        "agg_tiles_hash_after_apply",
    ]

    static func rows(
        for target: TiledSourceFiles.Target, of pack: Pack, style: PackStyle, zooms: ClosedRange<Int>, hash: String
    ) -> [Row] {
        let tileJSON = target.source.tileJSON.flatMap(JSONValue.parse)
        let primary = style.primary.flatMap { style.sources.indices.contains($0) ? style.sources[$0].id : nil }
        let tiledSources = style.sources.filter { $0.tiles != nil && $0.columns != nil }.count
        let label = tiledSources > 1 ? "\(pack.name) \(target.source.id)" : pack.name
        // The export's extent, latitudes clamped to the tile grid's (Web Mercator's square).
        let bounds = ImportedTileJSON.clamped(ExportedSource.extent(of: pack, within: target.tiles.bounds))
        var rows: [Row] = [
            ("name", tileJSON?["name"]?.string ?? label),
            ("format", format(of: target)),
            ("bounds", [bounds.west, bounds.south, bounds.east, bounds.north].map(text).joined(separator: ",")),
            ("center", center(tileJSON?["center"], in: bounds, zooms: zooms).map(text).joined(separator: ",")),
            ("minzoom", String(zooms.lowerBound)),
            ("maxzoom", String(zooms.upperBound)),
            ("type", primary == target.source.id ? "baselayer" : "overlay"),
            ("version", tileJSON?["version"]?.string ?? "1"),
            ("description", tileJSON?["description"]?.string ?? "source \(target.source.id) of PackFS pack \(pack.name)"),
        ]
        if let attribution = target.tiles.attribution { rows.append(("attribution", attribution)) }
        if target.tiles.type == .vector {
            let layers = ExportedSource.vectorLayers(of: target.source.id, tileJSON: tileJSON, in: style.style)
            rows.append(("json", JSONValue.object(["vector_layers": layers]).compactText))
        }
        rows.append(("agg_tiles_hash", hash))
        guard let kept = tileJSON?[keptKey]?.object else { return rows }
        for (name, value) in kept.sorted(by: { $0.key < $1.key }) where !madeHere.contains(name) {
            guard let text = value.string else { continue }
            if let index = rows.firstIndex(where: { $0.name == name }) {
                rows[index].value = text
            } else {
                rows.append((name, text))
            }
        }
        return rows
    }

    static func format(of target: TiledSourceFiles.Target) -> String {
        target.tiles.type == .vector ? "pbf" : target.source.fileExtension
    }

    /// Longitude, latitude and zoom of the default view, the zoom within the file's zooms.
    static func center(_ stored: JSONValue?, in bounds: Bounds, zooms: ClosedRange<Int>) -> [Double] {
        let (position, zoom) = ExportedSource.center(stored, extent: bounds)
        return [position.longitude, position.latitude, Double(min(max(Int(zoom), zooms.lowerBound), zooms.upperBound))]
    }

    /// A number as the spec's examples write it: whole numbers without a decimal point.
    static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
