import CDeflate
import Foundation

/// Inflation of a whole buffer at once with libdeflate, about twice as fast as zlib's streaming
/// inflate (measured on the benchmark's tiles: 14 µs against 25 µs for 8 KB of output). The mount
/// inflates every cold tile once to report its exact size, so this is on its hottest path.
///
/// Only the success path is taken from libdeflate: `nil` for anything it does not decode, and the
/// caller runs zlib, whose answer (data or error) then stands. Both decode exactly one zlib stream
/// or gzip member and ignore what follows it.
enum WholeInflate {
    static func decompress(_ input: Data, limit: Int) -> Data? {
        // Tried: a pool of decompressors instead of one per call: no measurable change.
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        let isGzip = input.starts(with: [0x1F, 0x8B])
        var capacity = min(limit, max(4096, input.count &* 4))
        while capacity > 0 {
            guard let buffer = malloc(capacity) else { return nil }
            var count = 0
            let result = input.withUnsafeBytes { raw in
                isGzip
                    ? libdeflate_gzip_decompress(decompressor, raw.baseAddress, raw.count, buffer, capacity, &count)
                    : libdeflate_zlib_decompress(decompressor, raw.baseAddress, raw.count, buffer, capacity, &count)
            }
            if result == LIBDEFLATE_SUCCESS {
                // Shrinking never fails in practice; if it did, the larger block still holds the bytes.
                let kept = realloc(buffer, max(count, 1)) ?? buffer
                return Data(bytesNoCopy: kept, count: count, deallocator: .free)
            }
            free(buffer)
            // Past the limit zlib decides, and throws `tooLarge`.
            guard result == LIBDEFLATE_INSUFFICIENT_SPACE, capacity < limit else { return nil }
            capacity = min(limit, capacity * 4)
        }
        return nil
    }
}
