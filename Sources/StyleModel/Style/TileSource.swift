import Basics
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// A tiled source once its TileJSON (if any) is known: everything needed to list and key its tiles.
public struct TileSource: Equatable, Sendable {
    public var id: String
    public var type: TileSourceType
    /// The first `tiles` template, resolved: the only one MapLibre uses, and the start of every tile key.
    public var urlTemplate: String
    public var scheme: TileScheme = .xyz
    /// The style's `tileSize`; 512 when it sets none.
    public var tileSize = 512
    public var minZoom = 0
    public var maxZoom = 22
    /// Tiles outside these bounds are not requested; nil covers the world.
    public var bounds: Bounds?
    public var attribution: String?
    /// The style's or TileJSON's `encoding` (`"mlt"`: MapLibre Tiles); nil when neither says.
    public var encoding: String?

    /// What its tiles must be (`ContentCheck`): by its type, and for a vector source its encoding.
    public var content: ContentKind {
        guard type == .vector else { return .rasterTile }
        return encoding == "mlt" ? .mapLibreTile : .vectorTile
    }

    /// True when the template is `mapbox://`: such tiles count against the Mapbox tile limit.
    public var isMapbox: Bool { MapboxURL.isMapbox(urlTemplate) }

    /// The tile zooms a region over `minZoom...maxZoom` (nil: unbounded) needs, nil when none, by
    /// MapLibre's covering zoom: vector floor(z); raster round(z + log2(512 / tileSize)), so 256-pixel
    /// tiles come one zoom deeper; then clamped to the source's range.
    public func coveringZooms(minZoom regionMin: Double, maxZoom regionMax: Double?) -> ClosedRange<Int>? {
        let low = Swift.max(coveringZoom(regionMin), minZoom)
        let high = regionMax.map { Swift.min(coveringZoom($0), maxZoom) } ?? maxZoom
        return low <= high ? low...high : nil
    }

    private func coveringZoom(_ zoom: Double) -> Int {
        // Vector: floor. Raster: rounds half away from zero, as C++ std::round.
        let covering = type == .vector ? zoom.rounded(.down) : (zoom + log2(512 / Double(tileSize))).rounded()
        // A stored definition (an app's) may hold any number: clamped, never trapping.
        return covering.isNaN ? 0 : Int(Swift.min(Swift.max(covering, -1), 255))
    }

    /// Tile (z, x, y) in XYZ numbering: its stored key and stored-form URL (`URLPolicy` makes the
    /// request URL).
    public func tile(z: Int, x: Int, y: Int, pixelRatio: Double) -> (key: TileKey, url: String) {
        let key = key(z: z, x: x, y: y, pixelRatio: pixelRatio)
        return (key, TileURLTemplate.url(for: key))
    }

    /// The stored key of tile (z, x, y) in XYZ numbering, for a pack of `pixelRatio`.
    public func key(z: Int, x: Int, y: Int, pixelRatio: Double) -> TileKey {
        Self.key(urlTemplate: urlTemplate, scheme: scheme, z: z, x: x, y: y, keyPixelRatio: keyPixelRatio(pixelRatio: pixelRatio))
    }

    /// The same from a source's template and scheme, with the key pixel ratio already worked out
    /// (`keyPixelRatio(pixelRatio:)`): the mount keys a tile per lookup from the fields it reads in
    /// place (a copy of the source retains every string in it), and the `{ratio}` search through the
    /// template is not free. Inlinable: a call across modules for one struct cost the lookup 140
    /// instructions and 20 instruction-cache misses (`instructions.sh`).
    @inlinable
    public static func key(urlTemplate: String, scheme: TileScheme, z: Int, x: Int, y: Int, keyPixelRatio: Int) -> TileKey {
        TileKey(urlTemplate: urlTemplate, pixelRatio: keyPixelRatio, z: z, x: x, y: scheme.row(y, z: z))
    }

    /// The key pixel ratio of this source's tiles in a pack of `pixelRatio` (`TileURLTemplate`).
    public func keyPixelRatio(pixelRatio: Double) -> Int {
        TileURLTemplate.keyPixelRatio(template: urlTemplate, packPixelRatio: pixelRatio)
    }
}
