/// A cursor over protobuf wire format in borrowed bytes (`VectorTileCheck`, `GlyphRangeCheck`,
/// `VectorTileLayers`): every length is checked against the bytes left, so no input traps.
struct ProtobufCursor {
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

    /// The next field number (never 0) and wire type; nil on a key that does not decode.
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
