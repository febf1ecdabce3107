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

    /// Inflates zlib or gzip data (window bits 15 + 32: detect the header).
    public static func decompress(_ input: Data) throws -> Data {
        try inflate(input, windowBits: 15 + 32)
    }

    /// Inflates with explicit window bits: 15 zlib, 31 gzip, -15 raw deflate, 47 auto.
    public static func inflate(_ input: Data, windowBits: Int32) throws -> Data {
        var stream = z_stream()
        guard packfs_inflateInit2(&stream, windowBits) == Z_OK else {
            throw Failure.zlib(code: Z_STREAM_ERROR, operation: "inflateInit")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: max(16_384, input.count * 4))
        let code: Int32 = input.withUnsafeBytes { inp -> Int32 in
            stream.next_in = UnsafeMutablePointer(
                mutating: inp.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            var status: Int32 = Z_OK
            while status == Z_OK {
                status = chunk.withUnsafeMutableBufferPointer { buf -> Int32 in
                    stream.next_out = buf.baseAddress
                    stream.avail_out = uInt(buf.count)
                    let result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(buf.baseAddress!, count: buf.count - Int(stream.avail_out))
                    return result
                }
                if status == Z_BUF_ERROR && stream.avail_in > 0 { status = Z_OK }
            }
            return status
        }
        guard code == Z_STREAM_END else { throw Failure.zlib(code: code, operation: "inflate") }
        return output
    }
}
