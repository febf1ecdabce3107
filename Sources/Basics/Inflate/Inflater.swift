import CDeflate
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Inflation of many values in turn on one thread (`packfs verify`): one libdeflate decompressor and
/// one buffer, grown to the largest value seen. Its answer is `Zlib.decompress`'s. One per thread.
public final class Inflater {
    private let decompressor: OpaquePointer?
    private var buffer: UnsafeMutableRawPointer?
    private var capacity = 0

    public init() { decompressor = libdeflate_alloc_decompressor() }

    deinit {
        if let decompressor { libdeflate_free_decompressor(decompressor) }
        free(buffer)
    }

    /// Calls `body` with `input` (zlib or gzip) inflated; the bytes are valid only during the
    /// call (the next call reuses them). Throws what `Zlib.decompress` throws.
    public func withInflated<T>(
        _ input: UnsafeRawBufferPointer, limit: Int = Zlib.maxInflatedBytes, _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        if let count = inflate(input, limit: limit), let buffer { return try body(UnsafeRawBufferPointer(start: buffer, count: count)) }
        return try Zlib.decompress(Data(input), limit: limit).withUnsafeBytes(body)
    }

    /// Where a zlib value's deflate stream lies, and its content's CRC-32 and size: what a gzip member
    /// of the same stream needs (`MBTilesTiles`). One inflate gives it all and checks the Adler-32. Nil
    /// when `input` is not one whole zlib value libdeflate decodes (gzip, a dictionary, trailing bytes).
    public func zlibStream(_ input: UnsafeRawBufferPointer, limit: Int = Zlib.maxInflatedBytes) -> ZlibStream? {
        guard input.count >= 6, input[0] & 0x0F == 8, input[1] & 0x20 == 0, (UInt16(input[0]) << 8 | UInt16(input[1])) % 31 == 0,
              let count = inflate(input, limit: limit, whole: true), let buffer
        else { return nil }
        let content = UnsafeRawBufferPointer(start: buffer, count: count)
        return ZlibStream(
            stream: 2..<(input.count - 4), content: content,
            crc32: UInt32(truncatingIfNeeded: libdeflate_crc32(0, buffer, count)))
    }

    /// libdeflate's inflation into the buffer; the bytes written, or nil for zlib to decide.
    /// `whole`: nil too when the value does not end where `input` does.
    private func inflate(_ input: UnsafeRawBufferPointer, limit: Int, whole: Bool = false) -> Int? {
        guard let decompressor, let start = input.baseAddress else { return nil }
        let isGzip = Zlib.isGzip(input)
        var wanted = min(limit, max(64 << 10, input.count &* 4))
        while wanted > 0 {
            if wanted > capacity {
                free(buffer)
                buffer = malloc(wanted)
                capacity = buffer == nil ? 0 : wanted
            }
            guard let buffer else { return nil }
            // The whole buffer: it may be larger than `wanted` from an earlier value, not past `limit`.
            let room = min(capacity, limit)
            var count = 0
            var consumed = 0
            let result =
                isGzip
                ? libdeflate_gzip_decompress_ex(decompressor, start, input.count, buffer, room, &consumed, &count)
                : libdeflate_zlib_decompress_ex(decompressor, start, input.count, buffer, room, &consumed, &count)
            if result == LIBDEFLATE_SUCCESS { return !whole || consumed == input.count ? count : nil }
            // Past the limit zlib decides, and throws `tooLarge`.
            guard result == LIBDEFLATE_INSUFFICIENT_SPACE, room < limit else { return nil }
            wanted = min(limit, room * 4)
        }
        return nil
    }
}

/// A zlib value's deflate stream (its place in the value) and its content, valid until the inflater's next call.
public struct ZlibStream {
    public let stream: Range<Int>
    public let content: UnsafeRawBufferPointer
    public let crc32: UInt32
}
