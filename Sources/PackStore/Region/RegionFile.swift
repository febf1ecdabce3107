import Basics
import FoundationEssentials

/// The region file a user writes to `packs/<name>.region` (docs/design.md §3): a region definition
/// plus free-form `metadata`. Two spellings are read:
/// - PackFS's own (`style`, `bounds` as `[west, south, east, north]`, `minzoom`, `maxzoom`, ...);
/// - MapLibre's definition format, when the file has `style_url`: `min_zoom`, `max_zoom`, and `bounds`
///   as `[south, west, north, east]`; a key of the other spelling is unknown, never read in the wrong order.
///
/// Both spellings also take `tile_storage` (`TileStorage`), a PackFS key kept in the pack's description.
///
/// Unknown keys are refused: a misspelt `max_zoom` would mean "unbounded" and download every zoom. A
/// FeatureCollection is merged (`RegionGeometry.merged`); a GeometryCollection the user wrote is kept, so
/// that `encoded()` reads back to the same value.
public struct RegionFile: Equatable, Sendable {
    public var definition: RegionDefinition
    /// The file's `metadata`, any JSON; nil when absent or null.
    public var metadata: JSONValue?
    /// How the pack stores its tiles; `compressed` when the file does not say.
    public var tileStorage: TileStorage

    public init(definition: RegionDefinition, metadata: JSONValue? = nil, tileStorage: TileStorage = .compressed) {
        self.definition = definition
        self.metadata = metadata
        self.tileStorage = tileStorage
    }

    public static func parse(_ data: Data) throws -> RegionFile {
        let json: JSONValue
        do {
            json = try JSONValue.parsing(data)
        } catch {
            throw StoreError.invalidDefinition(field: "region file", reason: "not valid JSON (\(error))")
        }
        guard let fields = json.object else {
            throw StoreError.invalidDefinition(field: "region file", reason: "not a JSON object")
        }
        let keys: RegionFileKeys = fields["style_url"] != nil ? .mapLibre : .packFS
        let reader = RegionFileReader(fields: fields, keys: keys)
        try reader.rejectUnknownKeys()
        let zooms = try reader.zooms()
        let definition = RegionDefinition(
            styleURL: try reader.style(), area: try reader.area(), minZoom: zooms.min,
            maxZoom: zooms.max, pixelRatio: try reader.pixelRatio(),
            includeIdeographs: try reader.bool(keys.includeIdeographs) ?? false)
        let storage = try TileStorage.parse(reader.given(keys.tileStorage), field: keys.tileStorage)
        return RegionFile(definition: definition, metadata: reader.given(keys.metadata), tileStorage: storage ?? .compressed)
    }

    /// The file in PackFS key names, one key per line, that `parse` reads back to an equal value.
    public func encoded() -> String {
        let writer = JSONWriter(decimalPoints: false)
        var lines = ["\"style\": " + JSONWriter.quoted(definition.styleURL)]
        switch definition.area {
        case .bounds(let b):
            let numbers = [b.west, b.south, b.east, b.north].map(writer.number)
            lines.append("\"bounds\": [" + numbers.joined(separator: ", ") + "]")
        case .geometry(let g):
            lines.append("\"geometry\": " + GeoJSON.text(of: g))
        }
        lines.append("\"minzoom\": " + writer.number(definition.minZoom))
        if let maxZoom = definition.maxZoom { lines.append("\"maxzoom\": " + writer.number(maxZoom)) }
        lines.append("\"pixel_ratio\": " + writer.number(definition.pixelRatio))
        lines.append("\"include_ideographs\": " + (definition.includeIdeographs ? "true" : "false"))
        // The default is left unsaid, so a file that never named it reads back as written.
        if tileStorage != .compressed { lines.append("\"\(TileStorage.key)\": " + JSONWriter.quoted(tileStorage.rawValue)) }
        if let metadata { lines.append("\"metadata\": " + metadata.compactText) }
        return "{\n  " + lines.joined(separator: ",\n  ") + "\n}\n"
    }
}

/// The key names of one spelling of the region file.
struct RegionFileKeys {
    var style, minZoom, maxZoom, pixelRatio, includeIdeographs: String
    let bounds = "bounds", geometry = "geometry", metadata = "metadata", tileStorage = TileStorage.key
    /// Where west, south, east and north sit in the `bounds` array.
    var boundsOrder: (west: Int, south: Int, east: Int, north: Int)
    var boundsDescription: String

    static let packFS = RegionFileKeys(
        style: "style", minZoom: "minzoom", maxZoom: "maxzoom", pixelRatio: "pixel_ratio",
        includeIdeographs: "include_ideographs", boundsOrder: (0, 1, 2, 3),
        boundsDescription: "[west, south, east, north]")
    static let mapLibre = RegionFileKeys(
        style: "style_url", minZoom: "min_zoom", maxZoom: "max_zoom", pixelRatio: "pixel_ratio",
        includeIdeographs: "include_ideographs", boundsOrder: (1, 0, 3, 2),
        boundsDescription: "[south, west, north, east] (MapLibre's order, since the file uses style_url)")

    var all: [String] {
        [style, bounds, geometry, minZoom, maxZoom, pixelRatio, includeIdeographs, tileStorage, metadata]
    }
}

/// Reads and validates one region file's fields; every error names the field as the file spells it.
struct RegionFileReader {
    let fields: [String: JSONValue]
    let keys: RegionFileKeys

    /// Schemes the downloader fetches; anything else (file://, a bare path) is refused so that a region
    /// file cannot make the daemon read local files.
    static let styleSchemes = ["http", "https", "mapbox"]
    static let maxZoomLevel = 24.0

    func rejectUnknownKeys() throws {
        for key in fields.keys.sorted() where !keys.all.contains(key) {
            throw StoreError.invalidDefinition(
                field: key, reason: "unknown key; a region file has " + keys.all.joined(separator: ", "))
        }
    }

    func style() throws -> String {
        guard let value = given(keys.style) else {
            throw StoreError.invalidDefinition(field: keys.style, reason: "missing (the style URL)")
        }
        guard let url = value.string else { throw typeError(keys.style, "a string (the style URL)", value) }
        let allowed = Self.styleSchemes.joined(separator: ", ")
        guard let colon = url.firstIndex(of: ":"),
            Self.styleSchemes.contains(url[..<colon].lowercased())
        else {
            throw StoreError.invalidDefinition(
                field: keys.style, reason: "\"\(url)\" is not a URL with a scheme PackFS fetches (\(allowed))")
        }
        // Parsed whole now, while the writer can still be told (the write fails with EINVAL and
        // `<name>.error` says why), not when the download fetches it.
        if let problem = URLSyntax.problem(in: url) {
            throw StoreError.invalidDefinition(field: keys.style, reason: "\"\(url)\" \(problem)")
        }
        return url
    }

    func area() throws -> RegionDefinition.Area {
        switch (given(keys.bounds), given(keys.geometry)) {
        case (let b?, nil): return .bounds(try self.bounds(b))
        case (nil, let g?): return .geometry(try RegionGeometry.geometry(from: g, field: keys.geometry))
        case (nil, nil):
            throw StoreError.invalidDefinition(field: keys.bounds, reason: "missing: give bounds or geometry")
        case (_?, _?):
            throw StoreError.invalidDefinition(
                field: keys.bounds, reason: "both bounds and geometry given; give exactly one")
        }
    }

    private func bounds(_ value: JSONValue) throws -> Bounds {
        let field = keys.bounds
        guard let items = value.array, items.count == 4,
            case let numbers = items.compactMap(\.number), numbers.count == 4,
            numbers.allSatisfy(\.isFinite)
        else {
            throw StoreError.invalidDefinition(field: field, reason: "must be 4 numbers \(keys.boundsDescription)")
        }
        let order = keys.boundsOrder
        let box = Bounds(
            west: numbers[order.west], south: numbers[order.south], east: numbers[order.east],
            north: numbers[order.north])
        for lon in [box.west, box.east] where !(-180...180).contains(lon) {
            throw StoreError.invalidDefinition(field: field, reason: "longitude \(lon) is outside -180..180")
        }
        for lat in [box.south, box.north] where !(-90...90).contains(lat) {
            throw StoreError.invalidDefinition(field: field, reason: "latitude \(lat) is outside -90..90")
        }
        guard box.west <= box.east else {
            throw StoreError.invalidDefinition(
                field: field, reason: "west \(box.west) is east of east \(box.east) (bounds may not cross the antimeridian)")
        }
        guard box.south <= box.north else {
            throw StoreError.invalidDefinition(field: field, reason: "south \(box.south) is north of north \(box.north)")
        }
        return box
    }

    func zooms() throws -> (min: Double, max: Double?) {
        let minZoom = try zoom(keys.minZoom) ?? 0
        let maxZoom = try zoom(keys.maxZoom)
        if let maxZoom, minZoom > maxZoom {
            throw StoreError.invalidDefinition(
                field: keys.minZoom, reason: "\(minZoom) is above \(keys.maxZoom) \(maxZoom)")
        }
        return (minZoom, maxZoom)
    }

    private func zoom(_ key: String) throws -> Double? {
        guard let zoom = try number(key) else { return nil }
        guard zoom >= 0, zoom <= Self.maxZoomLevel else {
            throw StoreError.invalidDefinition(field: key, reason: "\(zoom) is outside 0-24")
        }
        return zoom
    }

    func pixelRatio() throws -> Double {
        guard let ratio = try number(keys.pixelRatio) else { return 1 }
        guard ratio > 0 else {
            throw StoreError.invalidDefinition(field: keys.pixelRatio, reason: "\(ratio) is not positive")
        }
        return ratio
    }

    /// The value under `key`; nil when absent or null.
    func given(_ key: String) -> JSONValue? {
        fields[key].flatMap { $0 == .null ? nil : $0 }
    }

    /// The number under `key`; nil when absent or null.
    func number(_ key: String) throws -> Double? {
        guard let value = given(key) else { return nil }
        guard let number = value.number, number.isFinite else { throw typeError(key, "a number", value) }
        return number
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = given(key) else { return nil }
        guard let bool = value.bool else { throw typeError(key, "true or false", value) }
        return bool
    }

    private func typeError(_ key: String, _ expected: String, _ value: JSONValue) -> StoreError {
        .invalidDefinition(field: key, reason: "must be \(expected), not \(Self.kind(of: value))")
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
