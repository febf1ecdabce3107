import Foundation
import PackStore

/// What a renderer reading `file://` needs from a stored tile, and the name extension that says
/// what it is.
public enum TileFormat {
    /// The stored data decoded (zlib or gzip framing), then inflated once more when the content is
    /// itself gzip (servers that send pre-gzipped vector tiles without Content-Encoding):
    /// MapLibre Native inflates tiles fetched over HTTP but not those it reads from `file://`.
    public static func content(of data: StoredData) throws -> Data? {
        try content(decoded: try data.decoded())
    }

    /// The same from stored data already decoded (`OfflineDatabase.packTileContent`).
    public static func content(decoded: Data?) throws -> Data? {
        guard let decoded else { return nil }
        guard decoded.starts(with: [0x1F, 0x8B]) else { return decoded }
        return try Zlib.decompress(decoded)
    }

    /// The extension for `content`: by magic bytes, else `fallback` (pbf for vector sources,
    /// png for raster ones).
    public static func fileExtension(of content: Data?, fallback: String) -> String {
        guard let content else { return fallback }
        if content.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if content.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if content.count >= 12, content.starts(with: Array("RIFF".utf8)),
            content.dropFirst(8).starts(with: Array("WEBP".utf8))
        {
            return "webp"
        }
        return fallback
    }
}
