import Basics
import FoundationEssentials
import PackStore

/// What a renderer reading `file://` needs from a stored tile, and the name extension that says
/// what it is.
public enum TileFormat {
    /// What a renderer reads of a stored tile (`ServedTile`: the store's one rule).
    public static func content(of data: StoredData) throws -> Data? {
        try ServedTile.content(of: data)
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
