import Basics
import FoundationEssentials

/// What a pack covers: MapLibre's `OfflineTilePyramidRegionDefinition` or `OfflineGeometryRegionDefinition`,
/// stored in `regions.definition` as MapLibre's compact JSON.
public struct RegionDefinition: Equatable, Sendable {
    public enum Area: Equatable, Sendable {
        case bounds(Bounds)
        case geometry(Geometry)
    }

    public var styleURL: String
    public var area: Area
    public var minZoom: Double
    /// nil: unbounded (MapLibre stores no `max_zoom`; every zoom up to each source's maxzoom).
    public var maxZoom: Double?
    public var pixelRatio: Double
    public var includeIdeographs: Bool

    public init(
        styleURL: String, area: Area, minZoom: Double, maxZoom: Double?, pixelRatio: Double = 1,
        includeIdeographs: Bool = false
    ) {
        self.styleURL = styleURL
        self.area = area
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.pixelRatio = pixelRatio
        self.includeIdeographs = includeIdeographs
    }

    /// MapLibre's encoding: keys `style_url`, `min_zoom`, `max_zoom` (omitted when unbounded),
    /// `pixel_ratio`, `include_ideographs`, then `bounds` as [south, west, north, east] or
    /// `geometry`; every number with a decimal point.
    public var mapLibreJSON: String {
        let writer = JSONWriter(decimalPoints: true)
        var out = "{\"style_url\":" + JSONWriter.quoted(styleURL)
        out += ",\"min_zoom\":" + writer.number(minZoom)
        if let maxZoom { out += ",\"max_zoom\":" + writer.number(maxZoom) }
        out += ",\"pixel_ratio\":" + writer.number(pixelRatio)
        out += ",\"include_ideographs\":" + (includeIdeographs ? "true" : "false")
        switch area {
        case .bounds(let b):
            out += ",\"bounds\":["
            out += [b.south, b.west, b.north, b.east].map(writer.number).joined(separator: ",")
            out += "]"
        case .geometry(let g):
            out += ",\"geometry\":"
            GeoJSON.write(g, into: &out)
        }
        return out + "}"
    }

    /// Decodes MapLibre's JSON (as apps write it, so integers are accepted here too).
    public init(mapLibreJSON text: String) throws {
        guard let json = JSONValue.parse(Data(text.utf8)), json.object != nil else {
            throw StoreError.invalidDefinition(field: "definition", reason: "not a JSON object")
        }
        guard let style = json["style_url"]?.string else {
            throw StoreError.invalidDefinition(field: "style_url", reason: "missing")
        }
        guard let minZoom = json["min_zoom"]?.number else {
            throw StoreError.invalidDefinition(field: "min_zoom", reason: "missing")
        }
        let maxZoom = json["max_zoom"]?.number
        let ratio = json["pixel_ratio"]?.number ?? 1
        let ideographs = json["include_ideographs"]?.bool ?? false
        self.init(
            styleURL: style, area: try Self.area(of: json), minZoom: minZoom,
            maxZoom: maxZoom.flatMap { $0.isFinite ? $0 : nil }, pixelRatio: ratio,
            includeIdeographs: ideographs)
    }

    private static func area(of json: JSONValue) throws -> Area {
        if let b = json["bounds"]?.array?.compactMap(\.number), b.count == 4 {
            return .bounds(Bounds(west: b[1], south: b[0], east: b[3], north: b[2]))
        }
        if let geometry = json["geometry"] {
            return .geometry(try GeoJSON.geometry(from: geometry, field: "geometry"))
        }
        throw StoreError.invalidDefinition(field: "bounds", reason: "neither bounds nor geometry")
    }
}
