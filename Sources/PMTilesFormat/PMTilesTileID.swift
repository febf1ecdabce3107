import FoundationEssentials

/// A tile's id in a PMTiles archive (spec section 4.1): its place on the Hilbert curves of zooms 0, 1, 2... laid end to
/// end. Zoom z starts after the (4^z - 1) / 3 tiles of the zooms above it; within it, the curve of order z visits its
/// 4^z tiles from (0, 0) to (2^z - 1, 0). Ids of zooms 0 to 31 fit in 64 bits; zoom 32 would not. Sorting tiles by id
/// keeps neighbours near each other in the file at every zoom: a clustered archive's directories stay small and its
/// range requests few.
public struct PMTilesTileID: RawRepresentable, Hashable, Comparable, Sendable {
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let deepestZoom = 31

    public static func < (a: PMTilesTileID, b: PMTilesTileID) -> Bool { a.rawValue < b.rawValue }

    /// The id of tile z/x/y (XYZ rows: row 0 at the north); throws for a tile outside zooms 0...31 or its zoom's grid.
    public init(z: Int, x: Int, y: Int) throws {
        guard (0...Self.deepestZoom).contains(z) else {
            throw PMTilesFormatError.tileOutsideGrid(
                tile: "\(z)/\(x)/\(y)", grid: "zooms 0 to \(Self.deepestZoom), which PMTiles ids hold")
        }
        let size = 1 << z
        guard (0..<size).contains(x), (0..<size).contains(y) else {
            throw PMTilesFormatError.tileOutsideGrid(tile: "\(z)/\(x)/\(y)", grid: "zoom \(z)'s grid")
        }
        self.rawValue = Self.firstID(ofZoom: z) + Self.hilbertDistance(order: z, x: UInt64(x), y: UInt64(y))
    }

    /// The tile this id names; throws for an id past zoom 31.
    public func tile() throws -> (z: Int, x: Int, y: Int) {
        guard let z = (0...Self.deepestZoom).first(where: { rawValue < Self.firstID(ofZoom: $0 + 1) }) else {
            throw PMTilesFormatError.malformed("tile id \(rawValue) is past zoom \(Self.deepestZoom), the deepest PMTiles ids hold")
        }
        let (x, y) = Self.hilbertPoint(order: z, distance: rawValue - Self.firstID(ofZoom: z))
        return (z, Int(x), Int(y))
    }

    /// `z/x/y` for messages (`id N` for an id past zoom 31).
    public var name: String {
        guard let tile = try? tile() else { return "id \(rawValue)" }
        return "\(tile.z)/\(tile.x)/\(tile.y)"
    }

    /// (4^z - 1) / 3: the number of tiles of zooms 0 to z - 1. For z = 32 the shift would drop
    /// its bit; 4^32 - 1 is `UInt64.max`, which 3 divides.
    static func firstID(ofZoom z: Int) -> UInt64 {
        z >= 32 ? UInt64.max / 3 : ((1 << (2 * UInt64(z))) - 1) / 3
    }

    /// Position of (x, y) along the Hilbert curve of order `order`: the quadrant of each bit level from the top, the
    /// rest of the square turned so that the curve inside that quadrant starts where the previous one ended.
    private static func hilbertDistance(order: Int, x: UInt64, y: UInt64) -> UInt64 {
        var (x, y) = (x, y)
        var distance: UInt64 = 0
        for level in stride(from: order - 1, through: 0, by: -1) {
            let side: UInt64 = 1 << level
            let rx = (x >> level) & 1
            let ry = (y >> level) & 1
            distance += ((3 * rx) ^ ry) << (2 * level)
            x &= side - 1
            y &= side - 1
            (x, y) = turn(side: side, x: x, y: y, rx: rx, ry: ry)
        }
        return distance
    }

    /// The inverse: builds (x, y) from the lowest bit level up.
    private static func hilbertPoint(order: Int, distance: UInt64) -> (UInt64, UInt64) {
        var (x, y): (UInt64, UInt64) = (0, 0)
        var rest = distance
        for level in 0..<order {
            let side: UInt64 = 1 << level
            let rx = (rest >> 1) & 1
            let ry = (rest ^ rx) & 1
            (x, y) = turn(side: side, x: x, y: y, rx: rx, ry: ry)
            x += side * rx
            y += side * ry
            rest >>= 2
        }
        return (x, y)
    }

    /// The quadrant's turn: lower quadrants mirror on a diagonal (the right one also flipped), upper ones do not.
    private static func turn(side: UInt64, x: UInt64, y: UInt64, rx: UInt64, ry: UInt64) -> (UInt64, UInt64) {
        guard ry == 0 else { return (x, y) }
        if rx == 1 { return (side - 1 - y, side - 1 - x) }
        return (y, x)
    }
}
