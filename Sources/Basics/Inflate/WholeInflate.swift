import CDeflate
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Inflation of a whole buffer at once with libdeflate, faster than zlib (docs/benchmarks.md,
/// "Inflating"): every cold tile comes here. `nil` for anything it does not decode, and the
/// caller's zlib answer stands; both decode one stream or member and ignore what follows.
public enum WholeInflate {
    public static func decompress(_ input: Data, limit: Int) -> Data? {
        input.withUnsafeBytes { decompress($0, limit: limit, using: nil) }
    }

    /// Inflates `input` (a blob read in place) with `decompressor`, or one made for the call.
    public static func decompress(_ input: UnsafeRawBufferPointer, limit: Int, using decompressor: OpaquePointer?) -> Data? {
        let owned = decompressor == nil ? libdeflate_alloc_decompressor() : nil
        defer { if let owned { libdeflate_free_decompressor(owned) } }
        guard let decompressor = decompressor ?? owned else { return nil }
        let isGzip = Zlib.isGzip(input)
        // The first try stays under the daemon's fixed mmap threshold (PackFSCommand): a block
        // above it is a fresh mapping whose every page faults as the inflate writes it
        // (docs/benchmarks.md). Vector tiles inflate to about twice their stored size.
        var capacity = min(limit, max(4096, min(input.count &* 4, firstCapacityLimit)))
        while capacity > 0 {
            guard let buffer = malloc(capacity) else { return nil }
            var count = 0
            let result =
                isGzip
                ? libdeflate_gzip_decompress(decompressor, input.baseAddress, input.count, buffer, capacity, &count)
                : libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, buffer, capacity, &count)
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

    /// Below glibc's mmap threshold as the daemon sets it, with room for malloc's header: above it every
    /// page of a fresh mapping faults as the inflate writes it.
    static let firstCapacityLimit = mmapThreshold - 4096

    /// glibc's mmap threshold as `packfs` fixes it (`mallopt`): FUSE's 1 MB request buffers stay out of
    /// the arenas, and an inflate's first buffer stays under it.
    public static let mmapThreshold = 256 * 1024
}
