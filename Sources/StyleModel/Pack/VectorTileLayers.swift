import FoundationEssentials

/// The layer names of a Mapbox Vector Tile (a protobuf `Tile`: field 3 repeats `Layer`, whose
/// field 1 is its name), for the synthetic style of a pack whose TileJSON lists no
/// `vector_layers`. Reads only what it needs and gives up, without trapping, on bytes that are
/// not a tile.
enum VectorTileLayers {
    /// At most this many names: a style layer set per name, and a real tile has a few dozen.
    static let maxNames = 256

    static func names(in tile: Data) -> [String] {
        var reader = ProtobufReader(Array(tile))
        var names: [String] = []
        while names.count < maxNames, let (field, wireType) = reader.key() {
            guard field == 3, wireType == 2 else {
                guard reader.skip(wireType) else { break }
                continue
            }
            guard let layer = reader.lengthDelimited() else { break }
            if let name = layerName(layer), !names.contains(name) { names.append(name) }
        }
        return names
    }

    private static func layerName(_ layer: ArraySlice<UInt8>) -> String? {
        var reader = ProtobufReader(layer)
        while let (field, wireType) = reader.key() {
            if field == 1, wireType == 2, let bytes = reader.lengthDelimited() {
                return String(bytes: bytes, encoding: .utf8)
            }
            guard reader.skip(wireType) else { return nil }
        }
        return nil
    }
}

/// Protobuf's wire format, as far as `VectorTileLayers` reads it.
struct ProtobufReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }
    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func varint() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard let byte = bytes.popFirst() else { return nil }
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        return nil
    }

    /// The next field number and wire type; nil at the end or on a bad key.
    mutating func key() -> (field: UInt64, wireType: UInt64)? {
        guard let key = varint() else { return nil }
        return (key >> 3, key & 7)
    }

    mutating func lengthDelimited() -> ArraySlice<UInt8>? {
        guard let length = varint(), length <= UInt64(bytes.count) else { return nil }
        let count = Int(length)
        let field = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return field
    }

    /// Skips a value of `wireType`; false when it cannot (unknown type, cut short).
    mutating func skip(_ wireType: UInt64) -> Bool {
        switch wireType {
        case 0: return varint() != nil
        case 1: return drop(8)
        case 2: return lengthDelimited() != nil
        case 5: return drop(4)
        default: return false
        }
    }

    private mutating func drop(_ count: Int) -> Bool {
        guard bytes.count >= count else { return false }
        bytes = bytes.dropFirst(count)
        return true
    }
}
