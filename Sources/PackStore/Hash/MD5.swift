import Foundation

/// MD5 (RFC 1321), streaming: the digest martin's `agg_tiles_hash` is made of. Written here
/// because no library PackFS links has one (zlib and libdeflate do not; OpenSSL's libcrypto is
/// not a dependency). Not for security: only to name a tile set the way the map world does.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    private var pending = [UInt8]()
    private var length: UInt64 = 0

    public init() { pending.reserveCapacity(64) }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        update(Array(bytes))
    }

    public mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard !buffer.isEmpty else { return }
        length &+= UInt64(buffer.count)
        var rest = buffer[...]
        if !pending.isEmpty {
            let take = min(64 - pending.count, rest.count)
            pending += rest.prefix(take)
            rest = rest.dropFirst(take)
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        var offset = rest.startIndex
        while rest.endIndex - offset >= 64 {
            compress(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + 64)]))
            offset += 64
        }
        pending += buffer[offset..<rest.endIndex]
    }

    /// The 16-byte digest (the value stays usable: finishing works on a copy).
    public func finish() -> [UInt8] {
        var copy = self
        let bits = length &* 8
        copy.pending.append(0x80)
        while copy.pending.count % 64 != 56 { copy.pending.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) { copy.pending.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        let tail = copy.pending
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

    /// Per round: the constant (floor of |sin(i + 1)| * 2^32), the rotation, the message word.
    private struct Round {
        var constant: UInt32
        var shift: UInt32
        var word: Int
    }

    private static let rounds: [Round] = (0..<64).map { i in
        let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]
        let words = [i, (5 * i + 1) & 15, (3 * i + 5) & 15, (7 * i) & 15]
        return Round(
            constant: UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296).rounded(.down))),
            shift: shifts[(i >> 4) << 2 | (i & 3)], word: words[i >> 4])
    }

    /// One 64-byte block.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var (a, b, c, d) = state
        Self.rounds.withUnsafeBufferPointer { rounds in
            for i in 0..<64 {
                let round = rounds[i]
                var f: UInt32
                switch i >> 4 {
                case 0: f = (b & c) | (~b & d)
                case 1: f = (d & b) | (~d & c)
                case 2: f = b ^ c ^ d
                default: f = c ^ (b | ~d)
                }
                f = f &+ a &+ round.constant &+ block.loadUnaligned(fromByteOffset: round.word << 2, as: UInt32.self).littleEndian
                a = d
                d = c
                c = b
                b = b &+ (f << round.shift | f >> (32 &- round.shift))
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
