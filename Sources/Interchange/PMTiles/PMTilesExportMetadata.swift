import Basics
import FoundationEssentials
import PMTilesFormat
import PackStore
import StyleModel

/// What an exported archive says besides its tiles: the header's extent and center, the metadata JSON (spec chapter 5).
struct PMTilesExportMetadata {
    let extent: Bounds
    let center: (Position, UInt8)
    let json: JSONValue

    /// `hash`: the source's `agg_tiles_hash` (of its tiles as MBTiles holds them), a field of its own.
    init(target: TiledSourceFiles.Target, pack: Pack, style: PackStyle, hash: String?) {
        let tileJSON = target.source.tileJSON.flatMap(JSONValue.parse)
        extent = ExportedSource.extent(of: pack, within: target.tiles.bounds)
        center = ExportedSource.center(tileJSON?["center"], extent: extent)
        var fields: [String: JSONValue] = ["name": tileJSON?["name"]?.string.map(JSONValue.string) ?? .string(pack.name)]
        for key in ["description", "version"] {
            if let text = tileJSON?[key]?.string { fields[key] = .string(text) }
        }
        if let attribution = target.tiles.attribution { fields["attribution"] = .string(attribution) }
        if let hash { fields[PatchMetadata.hash] = .string(hash) }
        if target.tiles.type == .vector {
            fields["vector_layers"] = ExportedSource.vectorLayers(
                of: target.source.id, tileJSON: tileJSON, in: style.style)
        }
        json = .object(fields)
    }
}
