import Foundation
import PackStore
import StyleModel

/// `packfs export DB NAME OUT.pmtiles`: each tiled source of a pack (`TiledSourceFiles`) to a
/// clustered PMTiles v3 archive, the tiles streamed from the database a page at a time.
///
/// Tiles go in as a renderer reads them from the mount (`TileFormat.content`), vector tiles then
/// gzipped, as servers send them and as PMTiles readers expect (tile compression gzip); images
/// as they are (compression none). A tile with empty content is left out (PMTiles has no
/// zero-length entries; a missing tile draws the same nothing), and so is a stored row outside
/// its zoom's grid (an app's database may hold any value). The header's extent is the pack's
/// region within the source's bounds; the metadata carries the TileJSON's `name`,
/// `description`, `version` and `vector_layers` and the source's attribution.
public enum PMTilesExport {
    public struct File: Equatable, Sendable, CustomStringConvertible {
        public var path: String
        public var source: String
        /// Tiles the archive addresses.
        public var tiles: Int
        /// Directory entries (runs of consecutive tiles with the same content count once).
        public var entries: Int
        /// Distinct contents stored.
        public var contents: Int
        public var leafDirectories: Int
        public var bytes: UInt64
        public var emptyTilesLeftOut: Int
        public var offGridTilesLeftOut: Int

        /// One line for the command's output.
        public var description: String {
            var line = "\(path): source \"\(source)\", \(tiles) tiles in \(entries) entries, \(contents) distinct contents"
            line += ", \(leafDirectories) leaf directories, \(bytes) bytes"
            if emptyTilesLeftOut > 0 { line += "; \(emptyTilesLeftOut) empty tiles left out" }
            if offGridTilesLeftOut > 0 { line += "; \(offGridTilesLeftOut) tiles outside their zoom's grid left out" }
            return line
        }
    }

    /// Writes the archives and says what each holds. A source without a tile to write writes
    /// no file (it is not in the result); none at all is an error.
    public static func run(pack: Pack, from database: OfflineDatabase, to out: String, source: String? = nil) throws -> [File] {
        guard let style = try PackStyle.load(pack, from: database) else {
            throw InterchangeError("pack \"\(pack.name)\" holds no tiles")
        }
        let targets = try TiledSourceFiles.targets(of: style, pack: pack, out: out, fileExtension: "pmtiles", only: source)
        let files = try targets.compactMap { try write($0, pack: pack, style: style, database) }
        guard !files.isEmpty else { throw InterchangeError("pack \"\(pack.name)\" holds no tiles to export") }
        return files
    }

    private static func write(
        _ target: TiledSourceFiles.Target, pack: Pack, style: PackStyle, _ database: OfflineDatabase
    ) throws -> File? {
        let type = tileType(extension: target.source.fileExtension)
        let writer = try PMTilesWriter(path: target.path)
        var file = File(
            path: target.path, source: target.source.id, tiles: 0, entries: 0, contents: 0, leafDirectories: 0,
            bytes: 0, emptyTilesLeftOut: 0, offGridTilesLeftOut: 0)
        try database.forEachPackTile(target.columns) { z, x, storedY, data in
            let y = target.source.row(storedY, z: z)
            guard (0...PMTilesTileID.deepestZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
                file.offGridTilesLeftOut += 1
                return
            }
            guard let content = try TileFormat.content(of: data), !content.isEmpty else {
                file.emptyTilesLeftOut += 1
                return
            }
            try writer.add(z: z, x: x, y: y, data: type == .mvt ? Gzip.compress(content) : content)
            file.tiles += 1
        }
        guard file.tiles > 0 else { return nil }
        let metadata = PMTilesExportMetadata(target: target, pack: pack, style: style)
        var header = PMTilesHeader()
        header.tileType = type
        header.tileCompression = type == .mvt ? .gzip : .none
        header.minPosition = Position(longitude: metadata.extent.west, latitude: metadata.extent.south)
        header.maxPosition = Position(longitude: metadata.extent.east, latitude: metadata.extent.north)
        (header.center, header.centerZoom) = metadata.center
        let summary = try writer.finish(header: header, metadata: metadata.json)
        file.entries = summary.entries
        file.contents = summary.contents
        file.leafDirectories = summary.leafDirectories
        file.bytes = summary.fileBytes
        return file
    }

    /// The tile type of a source's files (`PackStyle.Source.fileExtension`).
    static func tileType(extension: String) -> PMTilesHeader.TileType {
        switch `extension` {
        case "png": return .png
        case "jpg": return .jpeg
        case "webp": return .webp
        default: return .mvt
        }
    }
}
