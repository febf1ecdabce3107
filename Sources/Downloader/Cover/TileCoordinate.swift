/// One Web Mercator tile in XYZ numbering: x grows east from -180, y south from +85.0511, in 0 ..< 2^z.
public struct TileCoordinate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// Row-major order within a zoom, the order a cover enumerates in.
    public static func < (a: TileCoordinate, b: TileCoordinate) -> Bool {
        (a.z, a.y, a.x) < (b.z, b.y, b.x)
    }

    public var description: String { "\(z)/\(x)/\(y)" }
}

/// The tiles of one row of a cover: `y` and a run of columns.
public struct TileSpan: Equatable, Sendable {
    public var y: Int
    public var x: ClosedRange<Int>

    public init(y: Int, x: ClosedRange<Int>) {
        self.y = y
        self.x = x
    }
}
