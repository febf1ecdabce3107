import CDeflate
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The common gzip body, one member, decoded by libdeflate in one call into an output sized by the
/// trailer's ISIZE (docs/benchmarks.md, "Inflating"). Anything else returns nil and takes the zlib
/// path (`Inflater`), which decides and says why. One per decoding thread.
public final class GzipFastPath {
    public struct Member {
        public var content: Data
        /// Where the member's deflate stream lies in the body.
        public var deflate: Range<Int>
    }

    private let decompressor: OpaquePointer

    /// nil only when libdeflate cannot allocate its 32 KB state.
    public init?() {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        self.decompressor = decompressor
    }

    deinit { libdeflate_free_decompressor(decompressor) }

    /// `start`: where the deflate stream begins (after the member header).
    public func member(_ body: UnsafeRawBufferPointer, deflateAt start: Int, limit: Int) -> Member? {
        guard let base = body.baseAddress, start + 8 <= body.count else { return nil }
        let size = Int(Self.littleEndian32(body, at: body.count - 4))
        // A forged ISIZE must not reserve more than deflate can expand to (about 1032:1).
        guard size > 0, size <= limit, size <= body.count * 1032, let output = malloc(size) else { return nil }
        var used = 0, produced = 0
        let result = libdeflate_deflate_decompress_ex(
            decompressor, base + start, body.count - 8 - start, output, size, &used, &produced)
        // The stream must end exactly where the trailer starts, and the trailer must match.
        guard result == LIBDEFLATE_SUCCESS, produced == size, start + used == body.count - 8,
              libdeflate_crc32(0, output, size) == Self.littleEndian32(body, at: body.count - 8)
        else {
            free(output)
            return nil
        }
        let content = Data(bytesNoCopy: output, count: size, deallocator: .free)
        return Member(content: content, deflate: start..<(start + used))
    }

    private static func littleEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}
