import Basics
import CDeflate
import FoundationEssentials

/// Turns a 200 body as received into its content and its stored form, inflating at most once and
/// never recompressing what the server already compressed.
///
/// - gzip: inflated once (checking CRC-32 and length), its deflate data re-framed as zlib
///   (78 9C + the same bytes + Adler-32); a single member through libdeflate (`GzipFastPath`).
/// - deflate: zlib kept as it is; raw deflate (some servers send it so) re-framed like gzip.
/// - identity: compressed with MapLibre's rule (`StoredData.encoding`).
/// The stored form is zlib only when strictly smaller. Failures name `url`. One per thread.
public final class BodyDecoder {
    public struct Decoded {
        public var content: Data
        public var stored: StoredData
    }

    private let inflater = StreamInflater()
    private let fastPath = GzipFastPath()

    public init() {}

    public func decode(_ body: Data, contentEncoding: String?, limit: Int, url: String) throws -> Decoded {
        let budget = Budget(url: url, limit: limit)
        switch contentEncoding ?? "identity" {
        case "identity", "": return Decoded(content: body, stored: StoredData.encoding(body))
        case "gzip", "x-gzip": return try gzip(body, budget)
        case "deflate": return try deflate(body, budget)
        case let other: throw HTTPError.unsupportedEncoding(other, url: url)
        }
    }

    /// The body being decoded: the URL its failures name, the most its content may take, and
    /// what earlier streams of it (gzip members) already took.
    struct Budget {
        var url: String
        var limit: Int
        var used = 0
    }

    /// One stream of the body, its failures named as the body's.
    private func inflate(_ input: UnsafeRawBufferPointer, windowBits: Int32, sizeHint: Int, _ budget: Budget) throws
        -> StreamInflater.Result
    {
        do {
            return try inflater.inflate(input, windowBits: windowBits, sizeHint: sizeHint, limit: budget.limit - budget.used)
        } catch .tooLarge {
            throw HTTPError.bodyTooLarge(limit: budget.limit, url: budget.url)
        } catch .corrupt(let reason) {
            throw HTTPError.corruptBody(reason: reason, url: budget.url)
        } catch {
            throw HTTPError.corruptBody(reason: error.description, url: budget.url)
        }
    }

    private func gzip(_ body: Data, _ budget: Budget) throws -> Decoded {
        try body.withUnsafeBytes { raw in
            let start = try GzipHeader.deflateOffset(in: raw, url: budget.url)
            if let member = fastPath?.member(raw, deflateAt: start, limit: budget.limit) {
                let deflate = UnsafeRawBufferPointer(rebasing: raw[member.deflate])
                return Decoded(content: member.content, stored: Self.reframed(deflate, content: member.content))
            }
            let first = try inflate(raw, windowBits: 31, sizeHint: GzipHeader.trailerSize(of: raw), budget)
            if first.consumed == raw.count {
                let deflate = UnsafeRawBufferPointer(rebasing: raw[start..<(raw.count - 8)])
                return Decoded(content: first.output, stored: Self.reframed(deflate, content: first.output))
            }
            // Concatenated members (RFC 1952 2.2) hold several deflate streams: no single zlib
            // stream can carry them, so the joined content is compressed like an identity body.
            var content = first.output
            var offset = first.consumed
            var rest = budget
            while offset < raw.count {
                rest.used = content.count
                let member = UnsafeRawBufferPointer(rebasing: raw[offset...])
                let next = try inflate(member, windowBits: 31, sizeHint: GzipHeader.trailerSize(of: member), rest)
                content.append(next.output)
                offset += next.consumed
            }
            return Decoded(content: content, stored: StoredData.encoding(content))
        }
    }

    private func deflate(_ body: Data, _ budget: Budget) throws -> Decoded {
        try body.withUnsafeBytes { raw in
            guard Self.isZlibHeader(raw) else {
                let stream = try inflate(raw, windowBits: -15, sizeHint: raw.count * 4, budget)
                let deflate = UnsafeRawBufferPointer(rebasing: raw[..<stream.consumed])
                return Decoded(content: stream.output, stored: Self.reframed(deflate, content: stream.output))
            }
            let stream = try inflate(raw, windowBits: 15, sizeHint: raw.count * 4, budget)
            guard stream.consumed < stream.output.count else {
                return Decoded(content: stream.output, stored: StoredData(bytes: stream.output, compressed: false))
            }
            let kept = stream.consumed == raw.count ? body : Data(raw[..<stream.consumed])
            return Decoded(content: stream.output, stored: StoredData(bytes: kept, compressed: true))
        }
    }

    /// zlib framing around an existing deflate stream, kept only when strictly smaller.
    static func reframed(_ deflate: UnsafeRawBufferPointer, content: Data) -> StoredData {
        let size = 2 + deflate.count + 4
        guard size < content.count else { return StoredData(bytes: content, compressed: false) }
        var zlib = Data(capacity: size)
        zlib.append(contentsOf: [0x78, 0x9C])
        if let base = deflate.baseAddress {
            zlib.append(base.assumingMemoryBound(to: UInt8.self), count: deflate.count)
        }
        // libdeflate's Adler-32 is SIMD: several times zlib's.
        let adler = content.withUnsafeBytes { UInt32(libdeflate_adler32(1, $0.baseAddress, $0.count)) }
        zlib.append(contentsOf: [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
        return StoredData(bytes: zlib, compressed: true)
    }

    /// RFC 1950 2.2: deflate method, window <= 32K, header check multiple of 31, no preset dictionary.
    static func isZlibHeader(_ raw: UnsafeRawBufferPointer) -> Bool {
        guard raw.count >= 2 else { return false }
        let cmf = raw[0], flg = raw[1]
        return cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0 && flg & 0x20 == 0
    }
}

/// The parts of an RFC 1952 member header re-framing needs.
enum GzipHeader {
    private static let fhcrc: UInt8 = 0x02, fextra: UInt8 = 0x04, fname: UInt8 = 0x08, fcomment: UInt8 = 0x10

    /// Where the deflate data starts: after the 10 fixed bytes and the optional FEXTRA, FNAME,
    /// FCOMMENT and FHCRC fields, in that order.
    static func deflateOffset(in raw: UnsafeRawBufferPointer, url: String) throws -> Int {
        guard raw.count >= 18, raw[0] == 0x1F, raw[1] == 0x8B, raw[2] == 8 else {
            throw HTTPError.corruptBody(reason: "not a gzip member", url: url)
        }
        let flags = raw[3]
        var offset = 10
        if flags & fextra != 0 {
            guard offset + 2 <= raw.count else {
                throw HTTPError.corruptBody(reason: "gzip FEXTRA truncated", url: url)
            }
            offset += 2 + (Int(raw[offset]) | Int(raw[offset + 1]) << 8)
        }
        for flag in [fname, fcomment] where flags & flag != 0 {
            while offset < raw.count, raw[offset] != 0 { offset += 1 }
            offset += 1
        }
        if flags & fhcrc != 0 { offset += 2 }
        guard offset + 8 <= raw.count else { throw HTTPError.corruptBody(reason: "gzip header truncated", url: url) }
        return offset
    }

    /// ISIZE of the last member (content length mod 2^32): an exact output size for one member.
    static func trailerSize(of raw: UnsafeRawBufferPointer) -> Int {
        guard raw.count >= 18 else { return 64 }
        let end = raw.count
        let size = Int(raw[end - 4]) | Int(raw[end - 3]) << 8 | Int(raw[end - 2]) << 16 | Int(raw[end - 1]) << 24
        // A forged ISIZE must not reserve gigabytes; deflate expands at most ~1032:1.
        return min(size, raw.count * 1032)
    }
}
