import CZlib
import FoundationEssentials

/// zlib inflation of one stream that reports how much input it used, for gzip re-framing
/// (`BodyDecoder`); a correct size hint (ISIZE) means one allocation. The z_stream is reset per
/// body and lives at a fixed heap address, since zlib points back to it. One per decoding thread.
public final class StreamInflater {
    public struct Result {
        public var output: Data
        public var consumed: Int
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private var initialised = false

    public init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// `windowBits`: 31 gzip (header, CRC-32 and ISIZE checked), 15 zlib (Adler-32 checked),
    /// -15 raw deflate (nothing to check). Throws `.corrupt` unless the stream ends within
    /// `input`, `.tooLarge` past `limit` output bytes.
    public func inflate(_ input: UnsafeRawBufferPointer, windowBits: Int32, sizeHint: Int, limit: Int) throws(Zlib.Failure) -> Result {
        let ready = initialised ? inflateReset2(stream, windowBits) : packfs_inflateInit2(stream, windowBits)
        guard ready == Z_OK else { throw .corrupt(reason: "inflateInit failed") }
        initialised = true
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        // One spare byte lets zlib see the end of the stream without a second, doubled buffer.
        var output = Data(count: max(64, min(sizeHint + 1, limit)))
        var produced = 0
        var status = Z_OK
        repeat {
            if produced == output.count {
                guard output.count < limit else { throw .tooLarge(limit: limit) }
                output.count = min(limit, output.count * 2)
            }
            status = output.withUnsafeMutableBytes { out -> Int32 in
                // `output` is never empty (64 bytes at least), so it has a base address.
                guard let base = out.baseAddress else { return Z_MEM_ERROR }
                stream.pointee.next_out = base.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(out.count - produced)
                // Z_FINISH: all input is here, so zlib inflates straight into `output` and never
                // allocates or fills its sliding window.
                let result = CZlib.inflate(stream, Z_FINISH)
                produced = out.count - Int(stream.pointee.avail_out)
                return result
            }
        } while status == Z_OK || (status == Z_BUF_ERROR && produced == output.count)
        guard status == Z_STREAM_END else {
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "truncated stream"
            throw .corrupt(reason: message)
        }
        output.count = produced
        return Result(output: output, consumed: input.count - Int(stream.pointee.avail_in))
    }
}
