import FoundationEssentials
import PackStore
import StyleModel

/// What a pack's style (`PackStyle`, read as the downloader read it, or synthetic) says about its tree: sources with
/// their tiles, the primary, glyph and sprite files. A source whose TileJSON is not stored yet has no tiles to show.
struct PackLayout: Sendable {
    typealias Source = PackStyle.Source

    typealias FontStack = FontStackFiles
    typealias GlyphFile = FontStackFiles.File

    var pack: Pack
    var style: Style?
    /// True when `style` was made from the pack's tiles (it has no usable stored style).
    var isSynthetic = false
    var sources: [Source] = []
    /// Index in `sources` of the primary source (`PackStyle.primary`).
    var primary: Int?
    var fontStacks: [FontStack] = []
    var spriteFiles: [SpriteSheet.File] = []

    static func load(_ pack: Pack, from database: OfflineDatabase) throws -> PackLayout {
        var layout = PackLayout(pack: pack)
        guard let packStyle = try PackStyle.load(pack, from: database) else { return layout }
        let style = packStyle.style
        layout.style = style
        layout.isSynthetic = packStyle.isSynthetic
        layout.sources = packStyle.sources
        layout.primary = packStyle.primary
        layout.spriteFiles = style.sprites.flatMap(\.files)
        layout.fontStacks = style.fontStackFiles
        return layout
    }

    /// The source at `ref.index` (a primary view only for the primary, and only while its tiles are known).
    func source(_ ref: SourceRef) -> Source? {
        guard sources.indices.contains(ref.index), !ref.primary || ref.index == primary else { return nil }
        return sources[ref.index]
    }

    /// The primary source (its tiles are at the pack's top), if the pack has one.
    var primarySource: Source? { primary.flatMap { sources.indices.contains($0) ? sources[$0] : nil } }

    /// The stored key of tile `y.<ext>` in column z/x of `source` (XYZ row in, stored row out).
    func tileKey(_ source: Source, z: Int, x: Int, y: Int) -> TileKey? {
        guard let tiles = source.tiles, let columns = source.columns else { return nil }
        return tiles.key(z: z, x: x, y: y, keyPixelRatio: columns.pixelRatio)
    }
}
