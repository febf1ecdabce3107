import FoundationEssentials

/// Whether bytes are a Mapbox Vector Tile: a protobuf message whose fields all decode, each `layers`
/// field (3) a message whose fields decode, with a non-empty `name` (1); features are skipped by length.
/// An empty tile is valid. One rule for `packfs verify` and the downloader (`ContentCheck`).
public enum VectorTileCheck {
    /// nil for a valid tile, else what is wrong.
    public static func problem(in data: Data) -> String? {
        data.withUnsafeBytes { problem(in: $0) }
    }

    public static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        var reader = ProtobufCursor(bytes: bytes, offset: 0, end: bytes.count)
        var layer = 0
        while !reader.atEnd {
            guard let (field, wire) = reader.key() else { return "a field key at byte \(reader.offset) does not decode" }
            guard field == 3 else {
                guard reader.skip(wire) else { return "field \(field) at byte \(reader.offset) runs past the tile" }
                continue
            }
            guard wire == 2, let range = reader.lengthDelimited() else { return "layer \(layer) is not a message" }
            if let problem = layerProblem(bytes, range) { return "layer \(layer): \(problem)" }
            layer += 1
        }
        return nil
    }

    private static func layerProblem(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        var reader = ProtobufCursor(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        var named = false
        while !reader.atEnd {
            guard let (field, wire) = reader.key() else { return "a field key does not decode" }
            if field == 1 {
                guard wire == 2, let name = reader.lengthDelimited() else { return "its name is not a string" }
                named = !name.isEmpty
                continue
            }
            guard reader.skip(wire) else { return "field \(field) runs past the layer" }
        }
        return named ? nil : "it has no name"
    }
}
