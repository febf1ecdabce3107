import FoundationEssentials

/// HTTP cache facts stored with every resource and tile.
public struct CacheHeaders: Equatable, Sendable {
    /// Unix seconds, from Cache-Control max-age or Expires.
    public var expires: Int64?
    /// Unix seconds, from Last-Modified.
    public var modified: Int64?
    public var etag: String?
    /// Cache-Control: must-revalidate (or no-cache).
    public var mustRevalidate: Bool

    public init(expires: Int64? = nil, modified: Int64? = nil, etag: String? = nil, mustRevalidate: Bool = false) {
        self.expires = expires
        self.modified = modified
        self.etag = etag
        self.mustRevalidate = mustRevalidate
    }
}
