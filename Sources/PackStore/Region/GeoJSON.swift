import Basics
/// Reading and writing GeoJSON geometry objects. Reading validates: positions are two or three
/// finite numbers inside [-180, 180] x [-90, 90], lines have two positions, polygon rings are
/// closed and have four. Each error names the JSON path of what was wrong.
public enum GeoJSON {
    public static func geometry(from value: JSONValue, field: String) throws -> Geometry {
        guard let type = value["type"]?.string else {
            throw StoreError.invalidDefinition(field: field, reason: "not a GeoJSON geometry (no \"type\")")
        }
        if type == "GeometryCollection" {
            guard let parts = value["geometries"]?.array, !parts.isEmpty else {
                throw StoreError.invalidDefinition(field: field + ".geometries", reason: "empty or missing")
            }
            return .collection(try parts.enumerated().map {
                try geometry(from: $0.element, field: "\(field).geometries[\($0.offset)]")
            })
        }
        guard let coordinates = value["coordinates"] else {
            throw StoreError.invalidDefinition(field: field + ".coordinates", reason: "missing")
        }
        return try shape(type: type, coordinates, field: field + ".coordinates", typeField: field + ".type")
    }

    private static func shape(type: String, _ c: JSONValue, field: String, typeField: String) throws -> Geometry {
        switch type {
        case "Point": return .point(try position(c, field))
        case "MultiPoint": return .multiPoint(try list(c, field, min: 1, position))
        case "LineString": return .lineString(try line(c, field))
        case "MultiLineString": return .multiLineString(try list(c, field, min: 1, line))
        case "Polygon": return .polygon(try polygon(c, field))
        case "MultiPolygon": return .multiPolygon(try list(c, field, min: 1, polygon))
        default:
            throw StoreError.invalidDefinition(field: typeField, reason: "unknown geometry type \"\(type)\"")
        }
    }

    private static func list<T>(
        _ value: JSONValue, _ field: String, min count: Int,
        _ element: (JSONValue, String) throws -> T
    ) throws -> [T] {
        guard let items = value.array else {
            throw StoreError.invalidDefinition(field: field, reason: "not an array")
        }
        guard items.count >= count else {
            throw StoreError.invalidDefinition(field: field, reason: "needs at least \(count) element(s)")
        }
        return try items.enumerated().map { try element($0.element, "\(field)[\($0.offset)]") }
    }

    private static func position(_ value: JSONValue, _ field: String) throws -> Position {
        guard let items = value.array, (2...3).contains(items.count),
            let lon = items[0].number, let lat = items[1].number, lon.isFinite, lat.isFinite
        else {
            throw StoreError.invalidDefinition(field: field, reason: "a position is [longitude, latitude]")
        }
        guard (-180...180).contains(lon), (-90...90).contains(lat) else {
            throw StoreError.invalidDefinition(field: field, reason: "position [\(lon), \(lat)] is outside [-180, 180] x [-90, 90]")
        }
        return Position(longitude: lon, latitude: lat)
    }

    private static func line(_ value: JSONValue, _ field: String) throws -> [Position] {
        try list(value, field, min: 2, position)
    }

    private static func ring(_ value: JSONValue, _ field: String) throws -> [Position] {
        let ring = try list(value, field, min: 4, position)
        guard ring.first == ring.last else {
            throw StoreError.invalidDefinition(field: field, reason: "a polygon ring must end where it starts")
        }
        return ring
    }

    private static func polygon(_ value: JSONValue, _ field: String) throws -> [[Position]] {
        try list(value, field, min: 1, ring)
    }

    /// As MapLibre's geojson writer emits it: `type`, then `coordinates` or `geometries`; every number with a
    /// decimal point.
    public static func text(of geometry: Geometry) -> String {
        var out = ""
        write(geometry, into: &out)
        return out
    }

    static func write(_ geometry: Geometry, into out: inout String) {
        let writer = JSONWriter(decimalPoints: true)
        func pos(_ p: Position) -> JSONValue { .array([.number(p.longitude), .number(p.latitude)]) }
        func coords(_ value: JSONValue, _ type: String) {
            out += "{\"type\":\"\(type)\",\"coordinates\":"
            writer.write(value, into: &out)
            out += "}"
        }
        switch geometry {
        case .point(let p): coords(pos(p), "Point")
        case .multiPoint(let ps): coords(.array(ps.map(pos)), "MultiPoint")
        case .lineString(let ps): coords(.array(ps.map(pos)), "LineString")
        case .multiLineString(let ls): coords(.array(ls.map { .array($0.map(pos)) }), "MultiLineString")
        case .polygon(let rs): coords(.array(rs.map { .array($0.map(pos)) }), "Polygon")
        case .multiPolygon(let ps):
            coords(.array(ps.map { .array($0.map { .array($0.map(pos)) }) }), "MultiPolygon")
        case .collection(let parts):
            out += "{\"type\":\"GeometryCollection\",\"geometries\":["
            for (i, part) in parts.enumerated() {
                if i > 0 { out += "," }
                write(part, into: &out)
            }
            out += "]}"
        }
    }
}
