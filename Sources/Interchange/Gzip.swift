import Foundation
import PackStore

/// gzip members (RFC 1952), as MBTiles readers expect vector tiles and as PMTiles frames its
/// directories, metadata and vector tiles.
///
/// PackStore's zlib shim only writes the zlib format (RFC 1950): a two-byte header, the deflate
/// stream, an Adler-32 trailer. A gzip member is the same deflate stream between a ten-byte
/// header and a CRC-32 and length trailer, so the stream is taken from `Zlib.compress` (which
/// never sets a preset dictionary) and framed here. Modification time 0 and OS "unknown": the
/// same bytes give the same file.
enum Gzip {
    static func compress(_ data: Data) throws -> Data {
        let zlib = try Zlib.compress(data)
        guard zlib.count >= 6 else { throw InterchangeError("zlib wrote \(zlib.count) bytes for \(data.count)") }
        var member = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF])
        member.reserveCapacity(zlib.count + 12)
        member.append(zlib.dropFirst(2).dropLast(4))
        member.appendLittleEndian(CRC32.checksum(data))
        // ISIZE is the input's length modulo 2^32 (RFC 1952 section 2.3.1).
        member.appendLittleEndian(UInt32(truncatingIfNeeded: data.count))
        return member
    }

    /// Inflates a gzip member, at most `limit` bytes of output (outside data: a bomb is refused).
    static func decompress(_ data: Data, limit: Int = Zlib.maxInflatedBytes) throws -> Data {
        try Zlib.inflate(data, windowBits: 31, limit: limit)
    }

    static func isGzip(_ data: Data) -> Bool { data.starts(with: [0x1F, 0x8B]) }
}

/// CRC-32 of ISO 3309 / ITU-T V.42 (gzip's), table-driven.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            data.withUnsafeBytes { bytes in
                for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            }
        }
        return ~crc
    }
}

extension Data {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
