import FoundationEssentials

/// The name extension that says what a stored tile is (its content: `ServedTile.content`).
public enum TileFormat {
    /// The extension for `content`: by its image signature (`ImageSignature`), else `fallback`
    /// (pbf for vector sources, png for raster ones).
    public static func fileExtension(of content: Data?, fallback: String) -> String {
        switch content.flatMap(ImageSignature.of) {
        case .png?: return "png"
        case .jpeg?: return "jpg"
        case .webp?: return "webp"
        case .gif?, nil: return fallback
        }
    }
}
