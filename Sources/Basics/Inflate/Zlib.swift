import CZlib
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// zlib's one-shot compress, gzip members, and a decompressor that accepts zlib or gzip framing.
public enum Zlib {
    /// Inflated bytes one stored value may grow to (the downloader's body limit): a zlib bomb in a
    /// database row must not take the daemon's memory.
    public static let maxInflatedBytes = 256 << 20

    public enum Failure: Error, CustomStringConvertible {
        case zlib(code: Int32, operation: String)
        case tooLarge(limit: Int)
        case outOfMemory(bytes: Int)
        /// A stream that does not inflate, in zlib's words (`StreamInflater`).
        case corrupt(reason: String)
        public var description: String {
            switch self {
            case .corrupt(let reason): return "inflate failed: \(reason)"
            case .zlib(let code, let operation): return "zlib \(operation) failed (code \(code))"
            case .tooLarge(let limit): return "inflated data exceeds \(limit) bytes"
            case .outOfMemory(let bytes): return "cannot allocate \(bytes) bytes to inflate into"
            }
        }
    }

    /// Whether `bytes` start as a gzip member does (ID1 ID2). Inlinable, and by index, without an
    /// iterator (Data's copies bytes into a buffer of its own) or an array: every cold tile read asks it
    /// twice, from another module.
    @inlinable
    public static func isGzip<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        let start = bytes.startIndex
        guard start != bytes.endIndex, bytes[start] == 0x1F else { return false }
        let second = bytes.index(after: start)
        return second != bytes.endIndex && bytes[second] == 0x8B
    }

    /// zlib format at the default level, byte-for-byte what zlib's `compress()` writes.
    public static func compress(_ input: Data) throws -> Data {
        var bound = compressBound(uLong(input.count))
        var output = Data(count: Int(bound))
        let code = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { inp in
                CZlib.compress(
                    out.bindMemory(to: Bytef.self).baseAddress, &bound,
                    inp.bindMemory(to: Bytef.self).baseAddress, uLong(input.count))
            }
        }
        guard code == Z_OK else { throw Failure.zlib(code: code, operation: "compress") }
        output.count = Int(bound)
        return output
    }

    /// A gzip member (RFC 1952) at the default level, as MBTiles and PMTiles readers expect, with
    /// modification time 0 and OS 255, so the same bytes always give the same member.
    public static func gzip(_ input: Data) throws -> Data {
        var stream = z_stream()
        guard packfs_deflateInit2(&stream, Z_DEFAULT_COMPRESSION, 31) == Z_OK else {
            throw Failure.zlib(code: Z_STREAM_ERROR, operation: "deflateInit")
        }
        defer { deflateEnd(&stream) }
        var header = gz_header()
        header.os = 255
        guard deflateSetHeader(&stream, &header) == Z_OK else {
            throw Failure.zlib(code: Z_STREAM_ERROR, operation: "deflateSetHeader")
        }
        // deflateBound counts the gzip header and trailer: one Z_FINISH call always ends.
        var output = Data(count: Int(deflateBound(&stream, uLong(input.count))))
        let code: Int32 = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { inp in
                stream.next_in = UnsafeMutablePointer(mutating: inp.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard code == Z_STREAM_END else { throw Failure.zlib(code: code, operation: "deflate") }
        output.count = Int(stream.total_out)
        return output
    }

    /// Inflates zlib or gzip data (window bits 15 + 32: detect the header). libdeflate decodes what
    /// it can (`WholeInflate`, faster); zlib decides everything else.
    public static func decompress(_ input: Data, limit: Int = maxInflatedBytes) throws -> Data {
        if let output = WholeInflate.decompress(input, limit: limit) { return output }
        return try inflate(input, windowBits: 15 + 32, limit: limit)
    }

    /// Inflates with explicit window bits: 15 zlib, 31 gzip, -15 raw deflate, 47 auto; throws `tooLarge`
    /// past `limit` output bytes. Every cold tile served comes here, so it is one Z_FINISH call into a
    /// malloc'd buffer that becomes the result (no sliding window, no zero-fill, no copy); a buffer too
    /// small is doubled (up to `limit`) and the call continues.
    public static func inflate(_ input: Data, windowBits: Int32, limit: Int = maxInflatedBytes) throws -> Data {
        var stream = z_stream()
        guard packfs_inflateInit2(&stream, windowBits) == Z_OK else {
            throw Failure.zlib(code: Z_STREAM_ERROR, operation: "inflateInit")
        }
        defer { inflateEnd(&stream) }
        var buffer = InflateBuffer(capacity: max(1, min(limit, max(4096, input.count &* 4))))
        let code: Int32 = try input.withUnsafeBytes { inp in
            stream.next_in = UnsafeMutablePointer(mutating: inp.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            try buffer.start(&stream)
            while true {
                let status = CZlib.inflate(&stream, Z_FINISH)
                guard status == Z_BUF_ERROR, stream.avail_out == 0 else { return status }
                try buffer.grow(&stream, limit: limit)
            }
        }
        guard code == Z_STREAM_END else {
            // zlib reports a stream cut short as Z_BUF_ERROR: say that rather than a code.
            throw Failure.zlib(code: code, operation: code == Z_BUF_ERROR ? "inflate (truncated)" : "inflate")
        }
        return try buffer.take(count: Int(stream.total_out))
    }
}

/// The malloc'd output of one inflate: grows by doubling up to a limit, and becomes a `Data`
/// without a copy. Freed unless taken.
private struct InflateBuffer: ~Copyable {
    private var pointer: UnsafeMutableRawPointer?
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pointer = malloc(capacity)
    }

    deinit { free(pointer) }

    func start(_ stream: inout z_stream) throws {
        guard let pointer else { throw Zlib.Failure.outOfMemory(bytes: capacity) }
        stream.next_out = pointer.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(capacity)
    }

    mutating func grow(_ stream: inout z_stream, limit: Int) throws {
        guard capacity < limit else { throw Zlib.Failure.tooLarge(limit: limit) }
        let used = capacity
        let wanted = min(limit, capacity * 2)
        guard let grown = realloc(pointer, wanted) else { throw Zlib.Failure.outOfMemory(bytes: wanted) }
        pointer = grown
        capacity = wanted
        stream.next_out = grown.assumingMemoryBound(to: Bytef.self) + used
        stream.avail_out = uInt(wanted - used)
    }

    /// The first `count` bytes as `Data` that frees them; the buffer gives them up.
    mutating func take(count: Int) throws -> Data {
        guard let pointer else { throw Zlib.Failure.outOfMemory(bytes: capacity) }
        // Shrinking never fails in practice; if it did, the larger block still holds the bytes.
        let kept = realloc(pointer, max(count, 1)) ?? pointer
        self.pointer = nil
        return Data(bytesNoCopy: kept, count: count, deallocator: .free)
    }
}
