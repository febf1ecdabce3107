import FoundationEssentials

/// The `data` and `compressed` columns of one row, exactly as stored. `bytes == nil` means "no content"
/// (a 404 or 204 tile). Compressed bytes are zlib (RFC 1950), as `compress()` writes them; readers also
/// accept gzip, which some apps wrote.
public struct StoredData: Equatable, Sendable {
    public var bytes: Data?
    public var compressed: Bool

    public init(bytes: Data?, compressed: Bool) {
        self.bytes = bytes
        self.compressed = compressed
    }

    public static let noContent = StoredData(bytes: nil, compressed: false)

    /// MapLibre's rule: compress, and keep the compressed form only when strictly smaller. Gzip
    /// bytes are kept as they are without the attempt: deflate never makes them smaller.
    public static func encoding(_ raw: Data) -> StoredData {
        if Zlib.isGzip(raw) { return StoredData(bytes: raw, compressed: false) }
        if let packed = try? Zlib.compress(raw), packed.count < raw.count {
            return StoredData(bytes: packed, compressed: true)
        }
        return StoredData(bytes: raw, compressed: false)
    }

    /// The content bytes a renderer reads, or nil for "no content".
    public func decoded() throws -> Data? {
        guard let bytes else { return nil }
        return compressed ? try Zlib.decompress(bytes) : bytes
    }

    /// Whether what a renderer reads of it (`ServedTile`) differs in size from what is stored:
    /// compressed, or gzip content. Only such rows get a recorded served size.
    public var servedSizeDiffers: Bool { bytes.map { compressed || Zlib.isGzip($0) } ?? false }

    /// Size as stored (what MapLibre counts in `completed_bytes`).
    public var storedSize: Int { bytes?.count ?? 0 }
}
