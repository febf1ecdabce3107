/// A longitude/latitude pair in degrees (GeoJSON order).
public struct Position: Equatable, Hashable, Sendable {
    public var longitude: Double
    public var latitude: Double
    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// A rectangle in degrees. `west <= east` and `south <= north` once validated.
public struct Bounds: Equatable, Sendable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }
}

/// A GeoJSON geometry (RFC 7946): the shapes a region may cover.
public indirect enum Geometry: Equatable, Sendable {
    case point(Position)
    case multiPoint([Position])
    case lineString([Position])
    case multiLineString([[Position]])
    case polygon([[Position]])
    case multiPolygon([[[Position]]])
    case collection([Geometry])

    /// Every position, for bounding boxes and validation.
    public var positions: [Position] {
        switch self {
        case .point(let p): return [p]
        case .multiPoint(let ps), .lineString(let ps): return ps
        case .multiLineString(let lines), .polygon(let lines): return lines.flatMap { $0 }
        case .multiPolygon(let polygons): return polygons.flatMap { $0.flatMap { $0 } }
        case .collection(let parts): return parts.flatMap(\.positions)
        }
    }

    /// The smallest bounds holding every position; nil for an empty geometry.
    public var bounds: Bounds? {
        let all = positions
        guard let first = all.first else { return nil }
        var box = Bounds(
            west: first.longitude, south: first.latitude, east: first.longitude,
            north: first.latitude)
        for p in all.dropFirst() {
            box.west = min(box.west, p.longitude)
            box.east = max(box.east, p.longitude)
            box.south = min(box.south, p.latitude)
            box.north = max(box.north, p.latitude)
        }
        return box
    }
}
