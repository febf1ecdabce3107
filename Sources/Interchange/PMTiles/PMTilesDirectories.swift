import FoundationEssentials
import PMTilesFormat

/// An archive's directories, compressed and ready to write: the root, and the leaves back to back (empty when the root
/// holds every entry). The spec's one hard rule (chapter 4): header and compressed root fit in the first 16,384 bytes,
/// one request for a client. Entries that do not fit are cut into leaves of `leafSize` consecutive entries, doubled
/// until the root of pointers fits; one level always suffices (4,096-entry leaves under a ~2,700-entry root address 11
/// million tiles). More than `rootEntryLimit` entries go to leaves even when they would fit (as in go-pmtiles): a
/// reader parses the whole root before its first tile, the reference Python reader for every tile.
struct PMTilesDirectories {
    static let rootLimit = 16_384 - PMTilesHeader.size
    static let firstLeafSize = 4_096
    static let rootEntryLimit = 16_384

    var root: Data
    var leaves: Data
    var leafCount: Int

    /// `entries` sorted by tile id; `compress` is the archive's internal compression.
    init(_ entries: [PMTilesEntry], compress: (Data) throws -> Data) throws {
        if entries.count <= Self.rootEntryLimit {
            let whole = try compress(PMTilesDirectory.encode(entries))
            if whole.count <= Self.rootLimit {
                (root, leaves, leafCount) = (whole, Data(), 0)
                return
            }
        }
        var leafSize = Self.firstLeafSize
        while true {
            let (pointers, leaves) = try Self.leaves(of: entries, size: leafSize, compress: compress)
            let root = try compress(PMTilesDirectory.encode(pointers))
            if root.count <= Self.rootLimit || leafSize >= entries.count {
                (self.root, self.leaves, leafCount) = (root, leaves, pointers.count)
                return
            }
            leafSize *= 2
        }
    }

    /// The leaves of `size` entries each, and the root entries pointing at them.
    private static func leaves(
        of entries: [PMTilesEntry], size: Int, compress: (Data) throws -> Data
    ) throws -> ([PMTilesEntry], Data) {
        var pointers: [PMTilesEntry] = []
        var leaves = Data()
        for start in stride(from: 0, to: entries.count, by: size) {
            let leaf = try compress(PMTilesDirectory.encode(Array(entries[start..<min(start + size, entries.count)])))
            guard let length = UInt32(exactly: leaf.count) else {
                throw InterchangeError.unwritablePMTiles("a leaf directory of \(leaf.count) bytes exceeds 32 bits")
            }
            pointers.append(PMTilesEntry(tileID: entries[start].tileID, offset: UInt64(leaves.count), length: length, runLength: 0))
            leaves.append(leaf)
        }
        return (pointers, leaves)
    }
}
