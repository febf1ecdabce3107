import FoundationEssentials

/// An MBTiles file as a side of a diff, read-only: rows as they are (martin's diff compares bytes, not what they decode
/// to). A stored `agg_tiles_hash` is not read: the diff hashes the tiles.
public struct FileDiffSide: DiffSide {
    public let label: String
    public let format: String?
    private let reader: MBTilesReader
    private let metadata: [String: String]

    /// Opens the file and reads its metadata; refused: no file, a directory, not MBTiles, a patch (as martin refuses).
    public init(path: String) throws {
        let reader = try MBTilesReader.open(path)
        do {
            metadata = try reader.metadata()
        } catch {
            reader.close()
            throw error
        }
        guard !PatchMetadata.isPatch(metadata) else {
            reader.close()
            throw InterchangeError.patchGiven(path)
        }
        self.reader = reader
        label = path
        format = metadata["format"]
    }

    public func forEachTile(_ body: (DiffTile) throws -> Void) throws {
        try reader.forEachTile { z, column, row, data in
            try body(DiffTile(place: TilePlace(z: z, column: column, row: row), data: data))
        }
    }

    public func metadata(after walk: SideWalk) -> [String: String] { metadata }

    public func close() { reader.close() }
}
