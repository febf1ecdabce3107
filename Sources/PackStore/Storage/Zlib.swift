import CZlib
import Foundation

/// zlib's one-shot compress and a decompressor that accepts zlib or gzip framing.
public enum Zlib {
    public enum Failure: Error, CustomStringConvertible {
        case zlib(code: Int32, operation: String)
        public var description: String {
            switch self {
            case .zlib(let code, let operation): return "zlib \(operation) failed (code \(code))"
            }
        }
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

    /// Inflates zlib or gzip data (window bits 15 + 32: detect the header). libdeflate decodes
    /// what it can (`WholeInflate`, twice as fast); zlib decides everything else.
    public static func decompress(_ input: Data) throws -> Data {
        if let output = WholeInflate.decompress(input) { return output }
        return try inflate(input, windowBits: 15 + 32)
    }

    /// Inflates with explicit window bits: 15 zlib, 31 gzip, -15 raw deflate, 47 auto.
    ///
    /// Every cold tile the mount serves is inflated once (its exact size is its inflated size),
    /// so this runs as one Z_FINISH call into a malloc'd buffer that becomes the result: zlib
    /// then needs no sliding window (no 32 KB allocation and copy) and nothing is zero-filled or
    /// copied. A buffer that proves too small is doubled and the call continues.
    public static func inflate(_ input: Data, windowBits: Int32) throws -> Data {
        var stream = z_stream()
        guard packfs_inflateInit2(&stream, windowBits) == Z_OK else {
            throw Failure.zlib(code: Z_STREAM_ERROR, operation: "inflateInit")
        }
        defer { inflateEnd(&stream) }
        var capacity = max(4096, input.count * 4)
        var buffer = malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
        let code: Int32 = input.withUnsafeBytes { inp in
            stream.next_in = UnsafeMutablePointer(mutating: inp.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            stream.next_out = buffer
            stream.avail_out = uInt(capacity)
            while true {
                let status = CZlib.inflate(&stream, Z_FINISH)
                guard status == Z_BUF_ERROR, stream.avail_out == 0 else { return status }
                let used = capacity
                capacity *= 2
                buffer = realloc(buffer, capacity)!.assumingMemoryBound(to: UInt8.self)
                stream.next_out = buffer + used
                stream.avail_out = uInt(capacity - used)
            }
        }
        guard code == Z_STREAM_END else {
            free(buffer)
            throw Failure.zlib(code: code, operation: "inflate")
        }
        let count = Int(stream.total_out)
        return Data(bytesNoCopy: realloc(buffer, max(count, 1))!, count: count, deallocator: .free)
    }
}
