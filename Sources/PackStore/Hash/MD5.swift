import FoundationEssentials

/// MD5 (RFC 1321), streaming: the digest martin's `agg_tiles_hash` is made of. Written here
/// because no library PackFS links has one (zlib and libdeflate do not; OpenSSL's libcrypto is
/// not a dependency). Not for security: only to name a tile set the way the map world does.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    /// The bytes of an unfinished block (`pendingCount` of them), inline: an `Array` here cost a
    /// copy-on-write check and a bounds-checked append per update, and the hash of small tiles
    /// updates three times per tile.
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var pendingCount = 0
    private var length: UInt64 = 0

    public init() {}

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
        length &+= UInt64(buffer.count)
        var offset = 0
        if pendingCount > 0 {
            let take = min(64 - pendingCount, buffer.count)
            let filled = pendingCount
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress?.advanced(by: filled).copyMemory(from: base, byteCount: take) }
            pendingCount += take
            offset = take
            guard pendingCount == 64 else { return }
            var block = pending
            withUnsafeBytes(of: &block) { compress($0) }
            pendingCount = 0
        }
        while buffer.count - offset >= 64 {
            compress(UnsafeRawBufferPointer(start: base + offset, count: 64))
            offset += 64
        }
        let rest = buffer.count - offset
        if rest > 0 {
            withUnsafeMutableBytes(of: &pending) { $0.baseAddress?.copyMemory(from: base + offset, byteCount: rest) }
            pendingCount = rest
        }
    }

    /// The 16-byte digest (the value stays usable: finishing works on a copy).
    public func finish() -> [UInt8] {
        var copy = self
        let bits = length &* 8
        var tail: [UInt8] = withUnsafeBytes(of: pending) { Array($0.prefix(pendingCount)) }
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        tail.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 64) {
                copy.compress(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + 64)]))
            }
        }
        let (a, b, c, d) = copy.state
        return [a, b, c, d].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) } }
    }

    /// The digest as martin writes it: 32 uppercase hex digits.
    public func hex() -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: finish().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// One 64-byte block: the 64 steps written out (a table of constants and a `switch` per
    /// step ran at 455 MB/s against md5sum's 775; `packfs verify` hashes at md5sum's pace).
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        let m0 = block.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian
        let m1 = block.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
        let m2 = block.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian
        let m3 = block.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian
        let m4 = block.loadUnaligned(fromByteOffset: 16, as: UInt32.self).littleEndian
        let m5 = block.loadUnaligned(fromByteOffset: 20, as: UInt32.self).littleEndian
        let m6 = block.loadUnaligned(fromByteOffset: 24, as: UInt32.self).littleEndian
        let m7 = block.loadUnaligned(fromByteOffset: 28, as: UInt32.self).littleEndian
        let m8 = block.loadUnaligned(fromByteOffset: 32, as: UInt32.self).littleEndian
        let m9 = block.loadUnaligned(fromByteOffset: 36, as: UInt32.self).littleEndian
        let m10 = block.loadUnaligned(fromByteOffset: 40, as: UInt32.self).littleEndian
        let m11 = block.loadUnaligned(fromByteOffset: 44, as: UInt32.self).littleEndian
        let m12 = block.loadUnaligned(fromByteOffset: 48, as: UInt32.self).littleEndian
        let m13 = block.loadUnaligned(fromByteOffset: 52, as: UInt32.self).littleEndian
        let m14 = block.loadUnaligned(fromByteOffset: 56, as: UInt32.self).littleEndian
        let m15 = block.loadUnaligned(fromByteOffset: 60, as: UInt32.self).littleEndian
        var (a, b, c, d) = state
        a = Self.f(a, b, c, d, m0, 0xD76AA478, 7)
        d = Self.f(d, a, b, c, m1, 0xE8C7B756, 12)
        c = Self.f(c, d, a, b, m2, 0x242070DB, 17)
        b = Self.f(b, c, d, a, m3, 0xC1BDCEEE, 22)
        a = Self.f(a, b, c, d, m4, 0xF57C0FAF, 7)
        d = Self.f(d, a, b, c, m5, 0x4787C62A, 12)
        c = Self.f(c, d, a, b, m6, 0xA8304613, 17)
        b = Self.f(b, c, d, a, m7, 0xFD469501, 22)
        a = Self.f(a, b, c, d, m8, 0x698098D8, 7)
        d = Self.f(d, a, b, c, m9, 0x8B44F7AF, 12)
        c = Self.f(c, d, a, b, m10, 0xFFFF5BB1, 17)
        b = Self.f(b, c, d, a, m11, 0x895CD7BE, 22)
        a = Self.f(a, b, c, d, m12, 0x6B901122, 7)
        d = Self.f(d, a, b, c, m13, 0xFD987193, 12)
        c = Self.f(c, d, a, b, m14, 0xA679438E, 17)
        b = Self.f(b, c, d, a, m15, 0x49B40821, 22)
        a = Self.g(a, b, c, d, m1, 0xF61E2562, 5)
        d = Self.g(d, a, b, c, m6, 0xC040B340, 9)
        c = Self.g(c, d, a, b, m11, 0x265E5A51, 14)
        b = Self.g(b, c, d, a, m0, 0xE9B6C7AA, 20)
        a = Self.g(a, b, c, d, m5, 0xD62F105D, 5)
        d = Self.g(d, a, b, c, m10, 0x02441453, 9)
        c = Self.g(c, d, a, b, m15, 0xD8A1E681, 14)
        b = Self.g(b, c, d, a, m4, 0xE7D3FBC8, 20)
        a = Self.g(a, b, c, d, m9, 0x21E1CDE6, 5)
        d = Self.g(d, a, b, c, m14, 0xC33707D6, 9)
        c = Self.g(c, d, a, b, m3, 0xF4D50D87, 14)
        b = Self.g(b, c, d, a, m8, 0x455A14ED, 20)
        a = Self.g(a, b, c, d, m13, 0xA9E3E905, 5)
        d = Self.g(d, a, b, c, m2, 0xFCEFA3F8, 9)
        c = Self.g(c, d, a, b, m7, 0x676F02D9, 14)
        b = Self.g(b, c, d, a, m12, 0x8D2A4C8A, 20)
        a = Self.h(a, b, c, d, m5, 0xFFFA3942, 4)
        d = Self.h(d, a, b, c, m8, 0x8771F681, 11)
        c = Self.h(c, d, a, b, m11, 0x6D9D6122, 16)
        b = Self.h(b, c, d, a, m14, 0xFDE5380C, 23)
        a = Self.h(a, b, c, d, m1, 0xA4BEEA44, 4)
        d = Self.h(d, a, b, c, m4, 0x4BDECFA9, 11)
        c = Self.h(c, d, a, b, m7, 0xF6BB4B60, 16)
        b = Self.h(b, c, d, a, m10, 0xBEBFBC70, 23)
        a = Self.h(a, b, c, d, m13, 0x289B7EC6, 4)
        d = Self.h(d, a, b, c, m0, 0xEAA127FA, 11)
        c = Self.h(c, d, a, b, m3, 0xD4EF3085, 16)
        b = Self.h(b, c, d, a, m6, 0x04881D05, 23)
        a = Self.h(a, b, c, d, m9, 0xD9D4D039, 4)
        d = Self.h(d, a, b, c, m12, 0xE6DB99E5, 11)
        c = Self.h(c, d, a, b, m15, 0x1FA27CF8, 16)
        b = Self.h(b, c, d, a, m2, 0xC4AC5665, 23)
        a = Self.i(a, b, c, d, m0, 0xF4292244, 6)
        d = Self.i(d, a, b, c, m7, 0x432AFF97, 10)
        c = Self.i(c, d, a, b, m14, 0xAB9423A7, 15)
        b = Self.i(b, c, d, a, m5, 0xFC93A039, 21)
        a = Self.i(a, b, c, d, m12, 0x655B59C3, 6)
        d = Self.i(d, a, b, c, m3, 0x8F0CCC92, 10)
        c = Self.i(c, d, a, b, m10, 0xFFEFF47D, 15)
        b = Self.i(b, c, d, a, m1, 0x85845DD1, 21)
        a = Self.i(a, b, c, d, m8, 0x6FA87E4F, 6)
        d = Self.i(d, a, b, c, m15, 0xFE2CE6E0, 10)
        c = Self.i(c, d, a, b, m6, 0xA3014314, 15)
        b = Self.i(b, c, d, a, m13, 0x4E0811A1, 21)
        a = Self.i(a, b, c, d, m4, 0xF7537E82, 6)
        d = Self.i(d, a, b, c, m11, 0xBD3AF235, 10)
        c = Self.i(c, d, a, b, m2, 0x2AD7D2BB, 15)
        b = Self.i(b, c, d, a, m9, 0xEB86D391, 21)
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    @inline(__always) private static func rotate(_ x: UInt32, _ s: UInt32) -> UInt32 { x << s | x >> (32 &- s) }

    @inline(__always)
    private static func f(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ k: UInt32, _ s: UInt32) -> UInt32 {
        b &+ rotate(a &+ (d ^ (b & (c ^ d))) &+ k &+ m, s)
    }

    @inline(__always)
    private static func g(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ k: UInt32, _ s: UInt32) -> UInt32 {
        b &+ rotate(a &+ (c ^ (d & (b ^ c))) &+ k &+ m, s)
    }

    @inline(__always)
    private static func h(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ k: UInt32, _ s: UInt32) -> UInt32 {
        b &+ rotate(a &+ (b ^ c ^ d) &+ k &+ m, s)
    }

    @inline(__always)
    private static func i(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ m: UInt32, _ k: UInt32, _ s: UInt32) -> UInt32 {
        b &+ rotate(a &+ (c ^ (b | ~d)) &+ k &+ m, s)
    }
}
