import FoundationEssentials

/// The layer names of a Mapbox Vector Tile (field 3 repeats `Layer`, whose field 1 is its name), for
/// a synthetic style whose TileJSON lists no `vector_layers`. Gives up, never traps, on a non-tile.
enum VectorTileLayers {
    /// At most this many names: a style layer set per name, and a real tile has a few dozen.
    static let maxNames = 256

    static func names(in tile: Data) -> [String] {
        tile.withUnsafeBytes { bytes in
            var reader = ProtobufCursor(bytes: bytes, offset: 0, end: bytes.count)
            var names: [String] = []
            while names.count < maxNames, let (field, wire) = reader.key() {
                guard field == 3, wire == 2 else {
                    guard reader.skip(wire) else { break }
                    continue
                }
                guard let layer = reader.lengthDelimited() else { break }
                if let name = layerName(bytes, layer), !names.contains(name) { names.append(name) }
            }
            return names
        }
    }

    private static func layerName(_ bytes: UnsafeRawBufferPointer, _ layer: Range<Int>) -> String? {
        var reader = ProtobufCursor(bytes: bytes, offset: layer.lowerBound, end: layer.upperBound)
        while let (field, wire) = reader.key() {
            if field == 1, wire == 2, let name = reader.lengthDelimited() {
                return String(bytes: UnsafeRawBufferPointer(rebasing: bytes[name]), encoding: .utf8)
            }
            guard reader.skip(wire) else { return nil }
        }
        return nil
    }
}
