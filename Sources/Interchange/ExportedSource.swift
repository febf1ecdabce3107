import Basics
import FoundationEssentials
import PackStore
import StyleModel

#if canImport(Glibc)
    import Glibc
#endif

/// What every export says about a tiled source besides its tiles, one rule for MBTiles' metadata and PMTiles' header
/// and metadata: extent, center, and the vector layers of a source whose TileJSON lists none.
enum ExportedSource {
    /// The pack's region (its bounds, or its geometry's box) within the source's bounds; when the two do not meet or
    /// the region is unreadable, the source's bounds, or the world.
    static func extent(of pack: Pack, within sourceBounds: Bounds?) -> Bounds {
        let world = sourceBounds ?? ImportedTileJSON.world
        let region: Bounds?
        switch pack.definition?.area {
        case .bounds(let bounds)?: region = bounds
        case .geometry(let geometry)?: region = geometry.bounds
        case nil: region = nil
        }
        guard let region else { return world }
        let meet = Bounds(
            west: max(region.west, world.west), south: max(region.south, world.south),
            east: min(region.east, world.east), north: min(region.north, world.north))
        return meet.west <= meet.east && meet.south <= meet.north ? meet : world
    }

    /// The TileJSON's `center` ([longitude, latitude, zoom]) if any; else the extent's middle at the zoom where it
    /// spans about one tile (writers clamp the zoom to their own range).
    static func center(_ value: JSONValue?, extent: Bounds) -> (Position, UInt8) {
        if let numbers = value?.array?.compactMap(\.number), numbers.count == 3, numbers.allSatisfy(\.isFinite) {
            return (Position(longitude: numbers[0], latitude: numbers[1]), UInt8(min(max(numbers[2], 0), 31)))
        }
        let middle = Position(longitude: (extent.west + extent.east) / 2, latitude: (extent.south + extent.north) / 2)
        let span = max(extent.east - extent.west, 1e-9)
        return (middle, UInt8(min(max(log2(360 / span).rounded(.down), 0), 31)))
    }

    /// The TileJSON's `vector_layers`; for an inline source, the `source-layer`s the style draws from it, in order.
    static func vectorLayers(of source: String, tileJSON: JSONValue?, in style: Style) -> JSONValue {
        if let layers = tileJSON?["vector_layers"]?.array { return .array(layers) }
        var names: [String] = []
        for layer in style.members["layers"]?.array ?? [] where layer["source"]?.string == source {
            if let name = layer["source-layer"]?.string, !names.contains(name) { names.append(name) }
        }
        return .array(names.map { .object(["id": .string($0), "fields": .object([:])]) })
    }
}
