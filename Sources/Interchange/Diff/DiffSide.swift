import FoundationEssentials

/// One side of a diff, OLD or NEW: a tile set as its MBTiles file holds it (an MBTiles file, or a
/// pack's tiled source as `packfs export` writes it), read once, in martin's order.
public protocol DiffSide: Sendable {
    /// How messages and the summary name it: the file's path, or `pack "N" of DB`.
    var label: String { get }
    /// Its MBTiles `format` (`pbf`, `png`...), when it says: two sides must not disagree.
    var format: String? { get }
    /// Calls `body` with every tile in martin's order (zoom, column, TMS row), on the diff's own thread.
    func forEachTile(_ body: (DiffTile) throws -> Void) throws
    /// Its MBTiles metadata rows, once a walk of its tiles has found what `walk` says.
    func metadata(after walk: SideWalk) throws -> [String: String]
    /// Lets go of what it holds open, once no diff reads it.
    func close()
}

/// A tile of one side: its place, and its bytes as the side's MBTiles file holds them.
public struct DiffTile: Sendable {
    public var place: TilePlace
    public var data: Data
}

/// Where a tile is, as MBTiles numbers it (TMS rows), ordered as martin's hash orders tiles.
public struct TilePlace: Comparable, Sendable, CustomStringConvertible {
    public var z: Int
    public var column: Int
    public var row: Int

    public static func < (a: TilePlace, b: TilePlace) -> Bool {
        (a.z, a.column, a.row) < (b.z, b.column, b.row)
    }

    public var description: String { "\(z)/\(column)/\(row) (TMS row)" }
}

/// What a side's walk found: its tiles' `agg_tiles_hash`, count and zooms.
public struct SideWalk: Sendable {
    public var hash: String
    public var tiles: Int
    public var zooms: ClosedRange<Int>?
}
