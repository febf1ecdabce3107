import FoundationEssentials

/// Protocol Buffers' unsigned varints, as PMTiles directories are written: seven bits a byte,
/// lowest first, the high bit set on every byte but the last.
extension Data {
    public mutating func appendVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        append(UInt8(rest))
    }

    /// Fixed-width integers, as the header holds them.
    public mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads varints from a file's bytes: one cut short or wider than 64 bits is an error, never a trap or a wrapped value.
struct VarintReader {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    var remaining: Int { bytes.count - position }

    mutating func next() throws -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard position < bytes.count else { throw PMTilesFormatError.malformed("a varint is cut short at byte \(position)") }
            let byte = bytes[position]
            position += 1
            let bits = UInt64(byte & 0x7F)
            // The tenth byte holds bit 63 alone.
            guard shift < 63 || bits <= 1 else { throw PMTilesFormatError.malformed("a varint at byte \(position - 1) exceeds 64 bits") }
            value |= bits << shift
            if byte & 0x80 == 0 { return value }
        }
        throw PMTilesFormatError.malformed("a varint at byte \(position - 1) runs past 10 bytes")
    }
}
