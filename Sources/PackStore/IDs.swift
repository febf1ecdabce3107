/// A row of `regions`: one pack.
public struct RegionID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ value: Int64) { self.rawValue = value }
    public static func < (a: RegionID, b: RegionID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }
}

/// A row of `resources`.
public struct ResourceID: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A row of `tiles`.
public struct TileID: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// `resources.kind`, MapLibre's `Resource::Kind`. Tiles (3) live only in `tiles`.
public enum ResourceKind: Int, Sendable, CaseIterable {
    case unknown = 0, style, source, tile, glyphs, spriteImage, spriteJSON, image
}

/// The unique key of a tile row: (first `tiles` template, pixel ratio, z, x, y), y as requested
/// from the server (already flipped for `scheme: tms`).
public struct TileKey: Hashable, Sendable {
    public var urlTemplate: String
    public var pixelRatio: Int
    public var z: Int
    public var x: Int
    public var y: Int
    public init(urlTemplate: String, pixelRatio: Int, z: Int, x: Int, y: Int) {
        self.urlTemplate = urlTemplate
        self.pixelRatio = pixelRatio
        self.z = z
        self.x = x
        self.y = y
    }
}
