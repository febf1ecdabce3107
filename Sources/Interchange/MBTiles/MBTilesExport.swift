import Foundation
import PackStore
import StyleModel

/// `packfs export DB NAME OUT.mbtiles`: each tiled source of a pack (or the one `--source` names)
/// to an MBTiles 1.3 file, streamed from the store a page at a time (`forEachPackTile`) into the
/// file's one transaction, so a pack of any size exports in constant memory.
///
/// Tiles: rows flipped to TMS; vector tiles gzipped, as the spec's readers expect (bytes the
/// pack stores gzipped are written as they are); images as they are. A stored tile whose
/// coordinates lie outside the tile grid (a damaged or hostile database) names no tile: it is
/// left out and counted, as the mount leaves it out of its tree.
public struct MBTilesExport: PackExport {
    /// One file written.
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

    /// Writes the files and says what each holds. A source without a tile to write gets no file
    /// (it is not in the summary, as in the PMTiles export); none at all is an error.
    public func write(to out: String) throws -> FileExportSummary<File> {
        try files.export(to: out, fileExtension: "mbtiles", write)
    }

    /// Thrown inside a file's transaction when its source has no tile: the file is dropped.
    private struct NothingToWrite: Error {}

    private func write(_ target: TiledSourceFiles.Target, style: PackStyle) throws -> File? {
        var census = TileCensus()
        do {
            try MBTilesWriter.write(to: target.path) { inserter in
                try copyTiles(target, into: &inserter, census: &census)
                guard let zooms = census.zooms else { throw NothingToWrite() }
                return MBTilesMetadata.rows(for: target, of: files.pack, style: style, zooms: zooms)
            }
        } catch is NothingToWrite {
            return nil
        }
        guard let zooms = census.zooms else { return nil }
        return File(
            source: target.source.id, path: target.path, tiles: census.count, skipped: census.skipped, zooms: zooms)
    }

    private func copyTiles(
        _ target: TiledSourceFiles.Target, into inserter: inout MBTilesWriter.TileInserter, census: inout TileCensus
    ) throws {
        let vector = target.tiles.type == .vector
        try files.database.forEachPackTile(target.columns) { z, x, storedY, data in
            guard let row = TileCensus.tmsRow(z: z, x: x, xyzRow: target.source.row(storedY, z: z)) else {
                census.skipped += 1
                return
            }
            let place = "tile \(z)/\(x)/\(storedY) of source \(target.source.id)"
            try inserter.insert(z: z, column: x, row: row, data: tileData(data, vector: vector, place: place))
            census.add(z)
        }
    }

    /// The bytes MBTiles holds for a stored tile: vector tiles gzipped, images as they are.
    private func tileData(_ stored: StoredData, vector: Bool, place: String) throws -> Data {
        do {
            let content = try stored.decoded() ?? Data()
            guard vector, !Gzip.isGzip(content) else { return content }
            return try Gzip.compress(content)
        } catch {
            throw InterchangeError.undecodable(what: place, pack: files.pack.name, reason: "\(error)")
        }
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

    /// The TMS row of XYZ tile z/x/y; nil when z/x/y is not a tile of zooms 0 to
    /// `ImportedPack.deepestZoom` (stored coordinates come from a file: checked before the flip).
    static func tmsRow(z: Int, x: Int, xyzRow y: Int) -> Int? {
        guard (0...ImportedPack.deepestZoom).contains(z) else { return nil }
        let size = 1 << z
        guard (0..<size).contains(x), (0..<size).contains(y) else { return nil }
        return size - 1 - y
    }
}
