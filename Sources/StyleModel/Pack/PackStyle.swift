import FoundationEssentials
import PackStore

/// A pack's style and sources as stored, for the mount and `packfs export`, read by the model the
/// downloader fetched by. A pack without a usable stored style (imported, or its style row missing or
/// unreadable) gets a `SyntheticStyle` from its tile sets, so every tile it holds is shown.
public struct PackStyle: Sendable {
    public struct Source: Sendable {
        public var declared: StyleSource
        /// Known once the TileJSON is stored (at once for inline `tiles`); nil for GeoJSON and images.
        public var tiles: TileSource?
        /// Where the tiles are keyed in this pack; nil until `tiles` is known.
        public var columns: TileColumnSet?
        /// The stored TileJSON's bytes; nil for inline sources and before it is stored.
        public var tileJSON: Data?
        /// pbf, png, jpg or webp: one per source, so a `tiles` template can name it.
        public var fileExtension: String

        public var id: String { declared.id }

        /// Row `y` of zoom `z` flipped when the source counts rows TMS-wise: a path's XYZ row from a
        /// stored row, and back.
        public func row(_ y: Int, z: Int) -> Int { tiles?.scheme.row(y, z: z) ?? y }
    }

    public var style: Style
    /// The style document the model read (the stored bytes, or the synthetic style's).
    public var styleData: Data
    /// True when the pack has no usable stored style and `style` was made from its tiles.
    public var isSynthetic: Bool
    public var sources: [Source]
    /// Index of the primary source (see `Style`); for a synthetic style, the first tile set.
    public var primary: Int?

    /// The stored style when readable, else a synthetic one; nil when the pack holds no tiles either.
    public static func load(_ pack: Pack, from database: some PackDocuments) throws -> PackStyle? {
        if let stored = try stored(pack, database) { return stored }
        return try SyntheticStyle.make(for: pack, from: database)
    }

    private static func stored(_ pack: Pack, _ database: some PackDocuments) throws -> PackStyle? {
        guard let definition = pack.definition,
            let data = try database.resource(url: definition.styleURL)?.data.decoded(),
            let style = try? Style(data: data, url: definition.styleURL)
        else { return nil }
        return try PackStyle(style: style, data: data, synthetic: false, of: pack, database)
    }

    /// Reads each source of `style` from the store.
    init(style: Style, data: Data, synthetic: Bool, of pack: Pack, _ database: some PackDocuments) throws {
        self.style = style
        styleData = data
        isSynthetic = synthetic
        let ratio = pack.definition?.pixelRatio ?? 1
        sources = try style.sources.map { try Self.source($0, of: pack, ratio: ratio, database) }
        primary = synthetic ? sources.firstIndex { $0.tiles != nil } : Style.primary(of: sources.map(\.tiles))
    }

    /// One source: tiles from its stored TileJSON (a broken one leaves them unknown), a raster
    /// source's extension from one of its tiles.
    private static func source(_ declared: StyleSource, of pack: Pack, ratio: Double, _ database: some PackDocuments)
        throws -> Source
    {
        var source = Source(declared: declared, fileExtension: declared.tileType == .vector ? "pbf" : "png")
        guard declared.tileType != nil else { return source }
        if let url = declared.url {
            guard let stored = try database.resource(url: url)?.data.decoded() else { return source }
            source.tileJSON = stored
        }
        let tiles: TileSource
        do {
            tiles = try declared.tileSource(tileJSON: source.tileJSON)
        } catch is StyleError {
            return source
        }
        source.tiles = tiles
        let columns = TileColumnSet(
            region: pack.id, urlTemplate: tiles.urlTemplate, pixelRatio: tiles.keyPixelRatio(pixelRatio: ratio))
        source.columns = columns
        if tiles.type != .vector {
            let sample = try database.sampleTile(columns).flatMap { try ServedTile.content(of: $0.data) }
            source.fileExtension = TileFormat.fileExtension(of: sample, fallback: "png")
        }
        return source
    }
}
