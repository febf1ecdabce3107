import PackStore

/// What a fetched resource must be, by what the plan fetches it for (docs/design.md §4): a `.source`
/// is a TileJSON or a geojson source's `data`; a tile is by its source's type and encoding.
public enum ContentKind: Sendable, Hashable {
    case style
    case tileJSON
    case geoJSON
    /// An image source's picture.
    case image
    case spriteIndex
    case spriteImage
    case glyphs
    /// A Mapbox Vector Tile, gzipped or not.
    case vectorTile
    /// A vector source whose style source or TileJSON says `"encoding": "mlt"`.
    case mapLibreTile
    /// A tile of a raster or raster-dem source.
    case rasterTile

    /// The kind a resource of `kind` must be when nothing else says (a `.source` is a TileJSON);
    /// nil for kinds nothing is known of (`.unknown`) and for tiles (their source says).
    public init?(resource kind: ResourceKind) {
        switch kind {
        case .style: self = .style
        case .source: self = .tileJSON
        case .glyphs: self = .glyphs
        case .spriteImage: self = .spriteImage
        case .spriteJSON: self = .spriteIndex
        case .image: self = .image
        case .unknown, .tile: return nil
        }
    }

    /// What it must be, as an error says it.
    public var expected: String {
        switch self {
        case .style: return "a MapLibre style (a JSON object with \"version\": 8, \"sources\" and \"layers\")"
        case .tileJSON: return "a TileJSON (a JSON object with a \"tiles\" array)"
        case .geoJSON: return "GeoJSON (a JSON object whose \"type\" is a GeoJSON type)"
        case .image: return "an image (PNG, JPEG or WebP)"
        case .spriteIndex: return "a sprite index (a JSON object whose entries have numeric x, y, width and height)"
        case .spriteImage: return "a sprite image (PNG)"
        case .glyphs: return "a glyph range (protobuf of font stacks)"
        case .vectorTile: return "a vector tile (protobuf of layers)"
        case .mapLibreTile: return "a MapLibre Tile"
        case .rasterTile: return "a raster tile (PNG, JPEG or WebP)"
        }
    }
}
