import Basics
/// The `geometry` of a region file: a GeoJSON geometry, a Feature or a FeatureCollection, turned
/// into the one `Geometry` a definition stores.
enum RegionGeometry {
    static func geometry(from value: JSONValue, field: String) throws -> Geometry {
        guard value.object != nil else {
            throw StoreError.invalidDefinition(field: field, reason: "must be a GeoJSON object")
        }
        switch value["type"]?.string {
        case "Feature":
            return try featureGeometry(value, field: field)
        case "FeatureCollection":
            guard let features = value["features"]?.array else {
                throw StoreError.invalidDefinition(field: field + ".features", reason: "missing or not an array")
            }
            guard !features.isEmpty else {
                throw StoreError.invalidDefinition(field: field + ".features", reason: "empty: no area to cover")
            }
            let parts = try features.enumerated().map {
                try featureGeometry($0.element, field: "\(field).features[\($0.offset)]")
            }
            return merged(parts)
        default:
            return try GeoJSON.geometry(from: value, field: field)
        }
    }

    private static func featureGeometry(_ value: JSONValue, field: String) throws -> Geometry {
        guard value["type"]?.string == "Feature" else {
            throw StoreError.invalidDefinition(field: field + ".type", reason: "must be \"Feature\"")
        }
        guard let geometry = value["geometry"], geometry != .null else {
            throw StoreError.invalidDefinition(field: field + ".geometry", reason: "missing or null: no area to cover")
        }
        return try GeoJSON.geometry(from: geometry, field: field + ".geometry")
    }

    /// One geometry for `parts`: a single part itself; a Multi* when all parts share a dimension (MapLibre
    /// covers nothing for a GeometryCollection); otherwise a GeometryCollection of the flattened parts.
    static func merged(_ parts: [Geometry]) -> Geometry {
        let flat = parts.flatMap(flattened)
        if flat.count == 1 { return flat[0] }
        var points: [Position] = [], lines: [[Position]] = [], polygons: [[[Position]]] = []
        for part in flat {
            switch part {
            case .point(let p): points.append(p)
            case .multiPoint(let ps): points += ps
            case .lineString(let l): lines.append(l)
            case .multiLineString(let ls): lines += ls
            case .polygon(let p): polygons.append(p)
            case .multiPolygon(let ps): polygons += ps
            case .collection: break  // flattened away above
            }
        }
        switch (points.isEmpty, lines.isEmpty, polygons.isEmpty) {
        case (false, true, true): return .multiPoint(points)
        case (true, false, true): return .multiLineString(lines)
        case (true, true, false): return .multiPolygon(polygons)
        default: return .collection(flat)
        }
    }

    private static func flattened(_ geometry: Geometry) -> [Geometry] {
        if case .collection(let parts) = geometry { return parts.flatMap(flattened) }
        return [geometry]
    }
}
