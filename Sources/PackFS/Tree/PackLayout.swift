import Foundation
import PackStore
import StyleModel

/// What a pack's stored style says about its tree, read by StyleModel as the downloader read it
/// to fetch: the sources with their tiles (from the stored TileJSON or the style's inline
/// `tiles`), the primary source, the glyph and sprite files. Read from the store, never from the
/// network; a source whose TileJSON is not stored yet has no tiles to show, and a style the model
/// refuses (the downloader then fetched nothing by it) shows no sources.
struct PackLayout: Sendable {
    struct Source: Sendable {
        var declared: StyleSource
        /// Known once the TileJSON is stored (at once for inline `tiles`); nil for GeoJSON and
        /// image sources.
        var tiles: TileSource?
        /// Where the tiles are keyed; nil until `tiles` is known.
        var columns: TileColumnSet?
        /// pbf, png, jpg or webp: one per source, so the style's `tiles` template can name it.
        var fileExtension: String

        var id: String { declared.id }

        /// Row `y` of zoom `z` flipped when the source counts rows TMS-wise: a path's XYZ row
        /// from a stored row, and back.
        func row(_ y: Int, z: Int) -> Int { tiles?.scheme.row(y, z: z) ?? y }
    }

    /// A font stack's directory and its range files (all 256 ranges: which of them the pack
    /// holds is the store's to say).
    struct FontStack: Sendable {
        var name: String
        var files: [GlyphFile]
    }

    struct GlyphFile: Sendable {
        var name: String
        var start: Int
        var url: String
    }

    var pack: Pack
    var style: Style?
    var sources: [Source] = []
    /// Index in `sources` of the primary source (`Style.primary(of:)`).
    var primary: Int?
    var fontStacks: [FontStack] = []
    var spriteFiles: [SpriteSheet.File] = []

    static func load(_ pack: Pack, from database: OfflineDatabase) throws -> PackLayout {
        var layout = PackLayout(pack: pack)
        guard let definition = pack.definition,
            let data = try database.resource(url: definition.styleURL)?.data.decoded(),
            let style = try? Style(data: data, url: definition.styleURL)
        else { return layout }
        layout.style = style
        layout.sources = try style.sources.map { try source($0, of: pack, ratio: definition.pixelRatio, database) }
        layout.primary = Style.primary(of: layout.sources.map(\.tiles))
        layout.spriteFiles = style.sprites.flatMap(\.files)
        if let glyphs = style.glyphs {
            let ranges = GlyphTemplate.ranges(includeIdeographs: true)
            layout.fontStacks = style.fontStacks.map { stack in
                FontStack(name: FontStacks.directoryName(of: stack), files: ranges.map {
                    GlyphFile(name: GlyphTemplate.fileName(range: $0), start: $0.lowerBound, url: glyphs.url(fontStack: stack, range: $0))
                })
            }
        }
        return layout
    }

    /// One source of the stored style: a tiled source's tiles come from its stored TileJSON (a
    /// broken one, which stopped the download, leaves them unknown); a raster source's extension
    /// from one of its tiles.
    private static func source(_ declared: StyleSource, of pack: Pack, ratio: Double, _ database: OfflineDatabase)
        throws -> Source
    {
        var source = Source(declared: declared, fileExtension: declared.tileType == .vector ? "pbf" : "png")
        guard declared.tileType != nil else { return source }
        var tileJSON: Data?
        if let url = declared.url {
            guard let stored = try database.resource(url: url)?.data.decoded() else { return source }
            tileJSON = stored
        }
        let tiles: TileSource
        do {
            tiles = try declared.tileSource(tileJSON: tileJSON)
        } catch is StyleError {
            return source
        }
        source.tiles = tiles
        let columns = TileColumnSet(
            region: pack.id, urlTemplate: tiles.urlTemplate, pixelRatio: tiles.keyPixelRatio(pixelRatio: ratio))
        source.columns = columns
        if tiles.type != .vector {
            let sample = try database.sampleTile(columns).flatMap { try TileFormat.content(of: $0.data) }
            source.fileExtension = TileFormat.fileExtension(of: sample, fallback: "png")
        }
        return source
    }

    /// The source at `ref.index` (the primary view exists only for the primary, and only while
    /// its tiles are known).
    func source(_ ref: SourceRef) -> Source? {
        guard sources.indices.contains(ref.index), !ref.primary || ref.index == primary else { return nil }
        return sources[ref.index]
    }

    /// The stored key of tile `y.<ext>` in column z/x of `source` (XYZ row in, stored row out),
    /// with the key pixel ratio the layout worked out when it was loaded.
    func tileKey(_ source: Source, z: Int, x: Int, y: Int) -> TileKey? {
        guard let tiles = source.tiles, let columns = source.columns else { return nil }
        return tiles.key(z: z, x: x, y: y, keyPixelRatio: columns.pixelRatio)
    }
}
