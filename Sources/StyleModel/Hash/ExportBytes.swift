import FoundationEssentials

/// Which bytes an MBTiles export holds for a zlib-stored vector tile, and so a pack's hash. A recorded
/// hash keeps its rule (`RecordedHash.rule`), so an older rule's hash is never taken for damage.
public enum ExportRule: Int, Sendable, CaseIterable {
    /// The tile inflated and deflated again by zlib at its default level: most of a download's and a
    /// verify's time.
    case deflatedAgain = 1
    /// The tile's own deflate stream in a gzip member: header, the same stream, CRC-32 and size,
    /// which one inflate gives (and checks).
    case sameStream = 2

    public static let current = ExportRule.sameStream
}

/// The bytes MBTiles holds for one tile, in up to three pieces valid during the call they are
/// passed to: a gzip header, a body (a deflate stream where the store holds it, or whole bytes),
/// a gzip trailer. `content` is the tile as a renderer reads it, when it was at hand.
public struct ExportBytes {
    public let head: UnsafeRawBufferPointer
    public let body: UnsafeRawBufferPointer
    public let tail: UnsafeRawBufferPointer
    public let content: UnsafeRawBufferPointer?

    public init(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer,
                content: UnsafeRawBufferPointer?) {
        self.head = head
        self.body = body
        self.tail = tail
        self.content = content
    }

    public init(_ whole: UnsafeRawBufferPointer, content: UnsafeRawBufferPointer?) {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        self.init(none, whole, none, content: content)
    }

    public var count: Int { head.count + body.count + tail.count }

    /// The pieces in order.
    public func forEachPiece(_ piece: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        for part in [head, body, tail] where !part.isEmpty { try piece(part) }
    }

    /// The bytes as one copy.
    public var data: Data {
        var data = Data(capacity: count)
        forEachPiece { data.append($0.assumingMemoryBound(to: UInt8.self)) }
        return data
    }
}

/// The gzip member's frame around a deflate stream (RFC 1952), byte for byte as `Zlib.gzip` writes it,
/// so a stream zlib made at its default level gets the bytes `Zlib.gzip` gives, whichever rule made them.
enum GzipFrame {
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF]

    /// Writes the header and the trailer (CRC-32, then the size modulo 2^32, little-endian)
    /// into `frame` (18 bytes); the two pieces.
    static func write(crc32: UInt32, size: Int, into frame: UnsafeMutableRawBufferPointer)
        -> (head: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer)
    {
        for (index, byte) in header.enumerated() { frame[index] = byte }
        let modulo = UInt32(truncatingIfNeeded: size)
        for index in 0..<4 {
            frame[10 + index] = UInt8(truncatingIfNeeded: crc32 >> (8 * index))
            frame[14 + index] = UInt8(truncatingIfNeeded: modulo >> (8 * index))
        }
        let bytes = UnsafeRawBufferPointer(frame)
        return (UnsafeRawBufferPointer(rebasing: bytes[0..<10]), UnsafeRawBufferPointer(rebasing: bytes[10..<18]))
    }
}
