import Basics
import FoundationEssentials
import PackStore

/// The TileJSON an imported pack stores, from the file's metadata. A value StyleModel would refuse (`bounds`, zooms,
/// `attribution`) is dropped for the tiles' zooms or the world, so one bad value never hides a pack's tiles.
struct ImportedTileJSON {
    /// Latitudes the tile grid reaches (Web Mercator's square).
    static let mercatorLatitude = 85.0511
    /// The whole tile grid.
    static let world = Bounds(west: -180, south: -mercatorLatitude, east: 180, north: mercatorLatitude)

    private(set) var fields: [String: JSONValue]
    /// The metadata's bounds when they are valid.
    private(set) var bounds: Bounds?

    init(_ value: JSONValue) {
        var fields = value.object ?? [:]
        for key in ["tiles", "scheme", "tilejson"] { fields[key] = nil }
        bounds = Self.bounds(fields["bounds"])
        if bounds == nil { fields["bounds"] = nil }
        for key in ["minzoom", "maxzoom"] where !Self.isZoom(fields[key]) { fields[key] = nil }
        if fields["attribution"]?.string == nil { fields["attribution"] = nil }
        if !Self.isCenter(fields["center"]) { fields["center"] = nil }
        self.fields = fields
    }

    /// The region's bounds: the metadata's, latitudes clamped to the tile grid; else the world.
    var regionBounds: Bounds { bounds.map(Self.clamped) ?? Self.world }

    /// `bounds`, latitudes clamped to the tile grid's.
    static func clamped(_ bounds: Bounds) -> Bounds {
        var box = bounds
        box.south = min(max(box.south, -mercatorLatitude), mercatorLatitude)
        box.north = min(max(box.north, -mercatorLatitude), mercatorLatitude)
        return box
    }

    /// The stored document: the checked fields, the pack's template, and the tiles' zooms where the metadata gives none
    /// or an inverted range.
    func document(template: String, zooms: ClosedRange<Int>) -> JSONValue {
        var document = fields
        document["tilejson"] = .string("3.0.0")
        document["tiles"] = .array([.string(template)])
        document["scheme"] = .string("xyz")
        let minZoom = document["minzoom"]?.number ?? Double(zooms.lowerBound)
        let maxZoom = document["maxzoom"]?.number ?? Double(zooms.upperBound)
        let ordered = minZoom <= maxZoom
        document["minzoom"] = .number(ordered ? minZoom : Double(zooms.lowerBound))
        document["maxzoom"] = .number(ordered ? maxZoom : Double(zooms.upperBound))
        return .object(document)
    }

    private static func isZoom(_ value: JSONValue?) -> Bool {
        guard let zoom = value?.number else { return false }
        return zoom == zoom.rounded() && (0...Double(ImportedPack.deepestZoom)).contains(zoom)
    }

    /// `[longitude, latitude]` or `[longitude, latitude, zoom]`.
    private static func isCenter(_ value: JSONValue?) -> Bool {
        guard let items = value?.array, (2...3).contains(items.count) else { return false }
        return items.allSatisfy { $0.number?.isFinite == true }
    }

    /// `[west, south, east, north]` within the world and not inverted; nil otherwise.
    private static func bounds(_ value: JSONValue?) -> Bounds? {
        guard let items = value?.array, items.count == 4 else { return nil }
        let numbers = items.compactMap(\.number)
        guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else { return nil }
        let bounds = Bounds(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
        guard -180 <= bounds.west, bounds.west <= bounds.east, bounds.east <= 180,
            -90 <= bounds.south, bounds.south <= bounds.north, bounds.north <= 90
        else { return nil }
        return bounds
    }
}
