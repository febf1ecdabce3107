import CDeflate
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Inflation of many values in turn on one thread (`packfs verify` inflates every tile of a
/// pack): one libdeflate decompressor and one output buffer, grown to the largest value seen,
/// instead of a decompressor and a buffer per value. Its answer is `Zlib.decompress`'s: libdeflate
/// decodes what it can, and zlib decides everything else (its data, or its error).
/// Not shareable: one per thread.
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

    /// libdeflate's inflation into the buffer; the bytes written, or nil for zlib to decide.
    private func inflate(_ input: UnsafeRawBufferPointer, limit: Int) -> Int? {
        guard let decompressor, let start = input.baseAddress else { return nil }
        let isGzip = input.count >= 2 && input[0] == 0x1F && input[1] == 0x8B
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
            let result =
                isGzip
                ? libdeflate_gzip_decompress(decompressor, start, input.count, buffer, room, &count)
                : libdeflate_zlib_decompress(decompressor, start, input.count, buffer, room, &count)
            if result == LIBDEFLATE_SUCCESS { return count }
            // Past the limit zlib decides, and throws `tooLarge`.
            guard result == LIBDEFLATE_INSUFFICIENT_SPACE, room < limit else { return nil }
            wanted = min(limit, room * 4)
        }
        return nil
    }
}
