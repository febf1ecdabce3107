import Foundation
import PackStore

/// The style source types whose data comes in tiles.
public enum TileSourceType: String, Sendable {
    case vector
    case raster
    case rasterDEM = "raster-dem"
}

/// A tiled source once its TileJSON (if any) is known: everything needed to list and key its tiles.
public struct TileSource: Equatable, Sendable {
    public var id: String
    public var type: TileSourceType
    /// The first `tiles` template, resolved against its document (the only one MapLibre uses, and
    /// the first part of every tile key).
    public var urlTemplate: String
    public var scheme: TileScheme
    /// The style's `tileSize`; 512 when it sets none.
    public var tileSize: Int
    public var minZoom: Int
    public var maxZoom: Int
    /// Tiles outside these bounds are not requested; nil covers the world.
    public var bounds: Bounds?
    public var attribution: String?

    public init(
        id: String, type: TileSourceType, urlTemplate: String, scheme: TileScheme = .xyz,
        tileSize: Int = 512, minZoom: Int = 0, maxZoom: Int = 22, bounds: Bounds? = nil,
        attribution: String? = nil
    ) {
        self.id = id
        self.type = type
        self.urlTemplate = urlTemplate
        self.scheme = scheme
        self.tileSize = tileSize
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.attribution = attribution
    }

    /// True when the template is `mapbox://`: such tiles count against the Mapbox tile limit.
    public var isMapbox: Bool { MapboxURL.isMapbox(urlTemplate) }

    /// The zooms of this source's tiles that a region spanning `minZoom...maxZoom` needs (nil
    /// `maxZoom`: unbounded), or nil when none. MapLibre's covering zoom: vector floor(z); raster
    /// and raster-dem round(z + log2(512 / tileSize)), so 256-pixel tiles are fetched one zoom
    /// deeper; then clamped to the source's own range.
    public func coveringZooms(minZoom regionMin: Double, maxZoom regionMax: Double?) -> ClosedRange<Int>? {
        let low = Swift.max(coveringZoom(regionMin), minZoom)
        let high = regionMax.map { Swift.min(coveringZoom($0), maxZoom) } ?? maxZoom
        return low <= high ? low...high : nil
    }

    private func coveringZoom(_ zoom: Double) -> Int {
        guard type != .vector else { return Int(zoom.rounded(.down)) }
        // Rounds half away from zero, as C++ std::round.
        return Int((zoom + log2(512 / Double(tileSize))).rounded())
    }

    /// Tile (z, x, y) in XYZ numbering: its stored key and its URL in stored form (hand the URL
    /// to `URLPolicy.requestURL(for:kind:)` with kind `.tile` to get what to request).
    public func tile(z: Int, x: Int, y: Int, pixelRatio: Double) -> (key: TileKey, url: String) {
        let key = TileURLTemplate.key(
            template: urlTemplate, scheme: scheme, pixelRatio: pixelRatio, z: z, x: x, y: y)
        let url = TileURLTemplate.url(
            template: urlTemplate, z: z, x: x, y: key.y, highDensity: pixelRatio > 1)
        return (key, url)
    }
}
