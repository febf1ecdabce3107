
/// What a patch of one tile set of a pack did to its tiles, for the mount to drop what the kernel cached and for
/// a summary. Compact (a row id or three small numbers a tile): a country's patch changes millions of tiles.
public struct TileChanges: Sendable {
    /// A tile place in the pack's source, as stored (row numbering of the source).
    public struct Place: Hashable, Sendable {
        public var z: Int32
        public var x: Int32
        public var y: Int32

        public init(z: Int32, x: Int32, y: Int32) {
            self.z = z
            self.x = x
            self.y = y
        }
    }

    /// The patched source's tiles: where it is keyed, and its id in the pack's style.
    public var columns: TileColumnSet
    public var source: String
    /// Rows whose bytes changed (the pack's tiles, and any other pack's that shares them).
    public var changed: [TileID] = []
    /// Tiles the pack did not show before.
    public var added: [Place] = []
    /// Tiles the pack showed and now holds as "no content".
    public var deleted: [Place] = []
    /// Other packs holding a changed or deleted row: they see the change too, and their recorded hashes were dropped.
    public var otherPacks: Set<RegionID> = []
    /// The changed or deleted rows those packs hold (their inodes there are stale).
    public var sharedRows: [TileID] = []

    public init(columns: TileColumnSet, source: String) {
        self.columns = columns
        self.source = source
    }
}
