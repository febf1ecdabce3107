import CCrypto
import FoundationEssentials

/// MD5 (RFC 1321), streaming, from libcrypto: martin's `agg_tiles_hash` digest, not for security.
/// A value: a copy goes on from the same state, and `finish` leaves the value usable.
public struct MD5: Sendable {
    private var context = MD5_CTX()

    public init() { MD5_Init(&context) }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        update(Array(bytes))
    }

    public mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard !buffer.isEmpty, let base = buffer.baseAddress else { return }
        MD5_Update(&context, base, buffer.count)
    }

    /// The 16-byte digest (the value stays usable: finishing works on a copy).
    public func finish() -> [UInt8] {
        var copy = context
        var digest = [UInt8](repeating: 0, count: Int(MD5_DIGEST_LENGTH))
        MD5_Final(&digest, &copy)
        return digest
    }

    /// The digest as martin writes it: 32 uppercase hex digits.
    public func hex() -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: finish().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
