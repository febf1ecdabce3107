import Basics
import FoundationEssentials
import PMTilesFormat
import PackStore
import StyleModel

/// The TileJSON MapLibre makes for a `pmtiles://` source: zooms, bounds and center from the header,
/// `tiles` the archive's stable template, the metadata's descriptive fields as they are.
enum ArchiveTileJSON {
    /// Metadata fields a TileJSON carries over; the header's own fields win over the metadata's.
    static let carried = ["name", "description", "attribution", "version", "vector_layers", "legend", "type", "format"]

    static func make(sourceURL: String, header: PMTilesHeader, metadata: JSONValue) -> Data {
        var object: [String: JSONValue] = [:]
        if var fields = metadata.object {
            // Archives converted from MBTiles may keep its `json` field (a string holding
            // `vector_layers`) as it was.
            if fields["vector_layers"] == nil, let text = fields["json"]?.string,
                let layers = JSONValue.parse(Data(text.utf8))?["vector_layers"]
            {
                fields["vector_layers"] = layers
            }
            for key in carried { if let value = fields[key] { object[key] = value } }
        }
        object["tilejson"] = .string("3.0.0")
        object["scheme"] = .string("xyz")
        object["tiles"] = .array([.string(ArchiveURL.template(of: sourceURL))])
        // Its tiles are then checked as MapLibre Tiles, not as protobuf (`ContentKind`).
        if header.tileType == .mlt { object["encoding"] = .string("mlt") }
        object["minzoom"] = .number(Double(header.minZoom))
        object["maxzoom"] = .number(Double(header.maxZoom))
        let (low, high) = (header.minPosition, header.maxPosition)
        object["bounds"] = .array([low.longitude, low.latitude, high.longitude, high.latitude].map { .number($0) })
        object["center"] = .array([header.center.longitude, header.center.latitude, Double(header.centerZoom)].map { .number($0) })
        return Data(JSONValue.object(object).compactText.utf8)
    }
}
