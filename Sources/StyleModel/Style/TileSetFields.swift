import Basics
import FoundationEssentials
import PackStore

/// The tileset fields MapLibre reads (`Converter<Tileset>`), from a TileJSON (2.x or 3.0) or a style
/// source object. Every field is optional so a style's values can override a TileJSON's one by one.
struct TileSetFields: Equatable, Sendable {
    /// The first `tiles` template, resolved against the document.
    var template: String?
    var scheme: TileScheme?
    var minZoom: Int?
    var maxZoom: Int?
    var bounds: Bounds?
    var attribution: String?
    /// `"mlt"` for MapLibre Tiles; anything else (or nothing) is a Mapbox Vector Tile, as in MapLibre.
    var encoding: String?

    init() {}

    /// Reads the fields of `object`, part of the document at `document`; `prefix` names the
    /// object's place in it (`sources.land.`) for error messages.
    init(_ object: JSONValue, document: String, prefix: String = "") throws {
        func fail(_ field: String, _ reason: String) -> StyleError {
            .invalidField(url: document, field: prefix + field, reason: reason)
        }
        if let tiles = object["tiles"] {
            guard let list = tiles.array, list.allSatisfy({ $0.string != nil }) else {
                throw fail("tiles", "must be an array of URL templates")
            }
            if let first = list.first?.string {
                template = try References.resolve(first, in: document, field: prefix + "tiles")
            }
        }
        if let value = object["scheme"], value != .null {
            guard let text = value.string else { throw fail("scheme", "must be \"xyz\" or \"tms\"") }
            // MapLibre reads anything but "tms" as xyz.
            scheme = text == "tms" ? .tms : .xyz
        }
        // Zooms as MapLibre takes them (0...255, truncated), clamped to `MBTilesTiles.deepestZoom`:
        // a TileJSON that says `"maxzoom": 255` means "as deep as there are tiles".
        minZoom = try Self.number(object["minzoom"], in: 0...255) { fail("minzoom", "must be a number from 0 to 255") }
            .map { min(Int($0), MBTilesTiles.deepestZoom) }
        maxZoom = try Self.number(object["maxzoom"], in: 0...255) { fail("maxzoom", "must be a number from 0 to 255") }
            .map { min(Int($0), MBTilesTiles.deepestZoom) }
        if let value = object["attribution"], value != .null {
            guard let text = value.string else { throw fail("attribution", "must be a string") }
            attribution = text
        }
        // Any other value is ignored, as other fields PackFS has no use for are.
        encoding = object["encoding"]?.string
        if let value = object["bounds"] {
            bounds = try Self.bounds(value) { fail("bounds", $0) }
        }
    }

    /// These fields where set, else `base`'s: a style's source values win over its TileJSON's.
    func overriding(_ base: TileSetFields) -> TileSetFields {
        var merged = base
        merged.template = template ?? base.template
        merged.scheme = scheme ?? base.scheme
        merged.minZoom = minZoom ?? base.minZoom
        merged.maxZoom = maxZoom ?? base.maxZoom
        merged.bounds = bounds ?? base.bounds
        merged.attribution = attribution ?? base.attribution
        merged.encoding = encoding ?? base.encoding
        return merged
    }

    /// A number in `range`; nil when missing or null.
    static func number(_ value: JSONValue?, in range: ClosedRange<Double>, _ error: () -> StyleError)
        throws -> Double?
    {
        guard let value, value != .null else { return nil }
        guard let number = value.number, range.contains(number) else { throw error() }
        return number
    }

    /// `[west, south, east, north]`, clamped to +-90 and +-180 as MapLibre does; inverted ones refused.
    private static func bounds(_ value: JSONValue, _ error: (String) -> StyleError) throws -> Bounds {
        guard let items = value.array, items.count == 4 else {
            throw error("must be [west, south, east, north]")
        }
        let numbers = items.compactMap(\.number)
        guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else {
            throw error("must hold four numbers (longitudes and latitudes)")
        }
        let south = min(max(numbers[1], -90), 90)
        let north = min(max(numbers[3], -90), 90)
        guard south <= north else { throw error("south latitude is above north latitude") }
        guard numbers[0] <= numbers[2] else { throw error("west longitude is east of east longitude") }
        return Bounds(west: max(-180, numbers[0]), south: south, east: min(180, numbers[2]), north: north)
    }
}
