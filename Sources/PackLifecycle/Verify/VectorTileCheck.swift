import FoundationEssentials

/// Whether bytes are a Mapbox Vector Tile as far as `packfs verify` asks: a protobuf message
/// whose fields all decode, each `layers` field (3) a message whose fields decode and which has
/// a non-empty `name` (1). Features are skipped by their length, not decoded: the question is
/// whether the tile parses, not whether its geometry draws. An empty tile (no layers) is valid.
enum VectorTileCheck {
    /// nil for a valid tile, else what is wrong.
    static func problem(in data: Data) -> String? {
        data.withUnsafeBytes { problem(in: $0) }
    }

    static func problem(in bytes: UnsafeRawBufferPointer) -> String? {
        var reader = Reader(bytes: bytes, offset: 0, end: bytes.count)
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
        var reader = Reader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
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

    /// A cursor over protobuf wire format.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int
        let end: Int

        var atEnd: Bool { offset >= end }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while offset < end, shift < 64 {
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }

        mutating func key() -> (field: UInt64, wire: UInt64)? {
            guard let key = varint(), key >> 3 > 0 else { return nil }
            return (key >> 3, key & 7)
        }

        mutating func lengthDelimited() -> Range<Int>? {
            guard let length = varint(), length <= UInt64(end - offset) else { return nil }
            let start = offset
            offset += Int(length)
            return start..<offset
        }

        /// Skips one value of wire type `wire`; false when it does not fit or the type is unknown.
        mutating func skip(_ wire: UInt64) -> Bool {
            switch wire {
            case 0: return varint() != nil
            case 1: return advance(8)
            case 2: return lengthDelimited() != nil
            case 5: return advance(4)
            default: return false
            }
        }

        private mutating func advance(_ count: Int) -> Bool {
            guard end - offset >= count else { return false }
            offset += count
            return true
        }
    }
}
