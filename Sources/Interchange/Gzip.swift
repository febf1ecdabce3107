import Basics
import FoundationEssentials
import PackStore

/// gzip members (RFC 1952), as MBTiles readers expect vector tiles and as PMTiles frames its
/// directories, metadata and vector tiles: written by PackStore's `Zlib.gzip` (zlib's framing and
/// CRC-32; modification time 0, OS "unknown": the same bytes give the same member).
enum Gzip {
    static func compress(_ data: Data) throws -> Data { try Zlib.gzip(data) }

    /// Inflates a gzip member, at most `limit` bytes of output (outside data: a bomb is refused).
    static func decompress(_ data: Data, limit: Int = Zlib.maxInflatedBytes) throws -> Data {
        try Zlib.inflate(data, windowBits: 31, limit: limit)
    }

    static func isGzip(_ data: Data) -> Bool { data.starts(with: [0x1F, 0x8B]) }
}
