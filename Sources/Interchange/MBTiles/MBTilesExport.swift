import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs export DB NAME OUT.mbtiles`: each tiled source of a pack (or `--source`'s) to an MBTiles 1.3 file,
/// streamed a page at a time into one transaction (constant memory), tiles as `MBTilesTiles` gives them. A row
/// outside the tile grid is left out and counted. `agg_tiles_hash` is computed from the bytes written, so
/// martin's `mbtiles validate` accepts the file.
public struct MBTilesExport: PackExport {
    public struct File: InterchangeSummary, Equatable {
        public var source: String
        public var path: String
        public var tiles: Int
        /// Stored tiles left out because their coordinates name no tile.
        public var skipped: Int
        public var zooms: ClosedRange<Int>

        public var lines: [String] {
            let skipped = skipped > 0 ? " (\(skipped) rows outside the tile grid left out)" : ""
            return ["\(path): source \(source), \(tiles) tiles, zooms \(zooms.lowerBound)-\(zooms.upperBound)\(skipped)"]
        }

        public var json: JSONValue {
            .object([
                "path": .string(path), "source": .string(source), "tiles": .number(Double(tiles)),
                "skipped": .number(Double(skipped)), "min_zoom": .number(Double(zooms.lowerBound)),
                "max_zoom": .number(Double(zooms.upperBound)),
            ])
        }
    }

    private let files: TiledSourceFiles

    /// `source`: the one tiled source to write (its id in the pack's style); nil: every one.
    public init(database: OfflineDatabase, pack: Pack, source: String? = nil) {
        files = TiledSourceFiles(database: database, pack: pack, only: source)
    }

    /// Writes the files and says what each holds; see `TiledSourceFiles.export` for sources without tiles.
    public func write(to out: String) throws -> FileExportSummary<File> {
        try files.export(to: out, fileExtension: "mbtiles", write)
    }

    /// Thrown inside a file's transaction when its source has no tile: the file is dropped.
    private struct NothingToWrite: Error {}

    private func write(_ target: TiledSourceFiles.Target, style: PackStyle) throws -> File? {
        var census = TileCensus()
        do {
            try MBTilesWriter.write(to: target.path) { inserter in
                let hash = try copyTiles(target, into: &inserter, census: &census)
                guard let zooms = census.zooms else { throw NothingToWrite() }
                return MBTilesMetadata.rows(for: target, of: files.pack, style: style, zooms: zooms, hash: hash)
                    .map { (name: $0.name, value: Optional($0.value)) }
            }
        } catch is NothingToWrite {
            return nil
        }
        guard let zooms = census.zooms else { return nil }
        return File(
            source: target.source.id, path: target.path, tiles: census.count, skipped: census.skipped, zooms: zooms)
    }

    /// Copies the tiles in martin's order and returns their `agg_tiles_hash`, made of the very bytes written.
    private func copyTiles(
        _ target: TiledSourceFiles.Target, into inserter: inout MBTilesWriter.TileInserter, census: inout TileCensus
    ) throws -> String {
        var hash = TileSetHash()
        try target.forEachMBTilesTile(in: files.database, pack: files.pack.name, outside: { census.skipped += 1 }) {
            z, column, tmsRow, data in
            try inserter.insert(z: z, column: column, row: tmsRow, data: data)
            hash.add(z: z, column: column, tmsRow: tmsRow, data: data)
            census.add(z)
        }
        return hash.hex
    }
}

/// What an export wrote: the zooms and the count of tiles, and the tiles it left out.
struct TileCensus {
    private(set) var zooms: ClosedRange<Int>?
    private(set) var count = 0
    var skipped = 0

    mutating func add(_ z: Int) {
        count += 1
        zooms = zooms.map { min($0.lowerBound, z)...max($0.upperBound, z) } ?? z...z
    }
}
