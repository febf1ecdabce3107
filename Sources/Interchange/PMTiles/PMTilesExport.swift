import Basics
import FoundationEssentials
import PMTilesFormat
import PackStore
import StyleModel

/// `packfs export DB NAME OUT.pmtiles`: each tiled source of a pack (`TiledSourceFiles`) to a clustered PMTiles v3
/// archive, the tiles streamed from the database a page at a time. Tiles go in as a renderer reads them from the mount
/// (`ServedTile.content`), vector tiles gzipped as PMTiles readers expect, images as they are. Left out: a tile with
/// empty content (PMTiles has no zero-length entries; a missing tile draws the same nothing) and a stored row outside
/// its zoom's grid (an app's database may hold any value).
public struct PMTilesExport: PackExport {
    public struct File: InterchangeSummary, Equatable {
        public var path: String
        public var source: String
        /// Tiles the archive addresses.
        public var tiles = 0
        /// Directory entries (runs of consecutive tiles with the same content count once).
        public var entries = 0
        /// Distinct contents stored.
        public var contents = 0
        public var leafDirectories = 0
        public var bytes: UInt64 = 0
        public var emptyTilesLeftOut = 0
        public var offGridTilesLeftOut = 0

        public var lines: [String] {
            var line = "\(path): source \"\(source)\", \(tiles) tiles in \(entries) entries, \(contents) distinct contents"
            line += ", \(leafDirectories) leaf directories, \(bytes) bytes"
            if emptyTilesLeftOut > 0 { line += "; \(emptyTilesLeftOut) empty tiles left out" }
            if offGridTilesLeftOut > 0 { line += "; \(offGridTilesLeftOut) tiles outside their zoom's grid left out" }
            return [line]
        }

        public var json: JSONValue {
            let counts = [
                "tiles": tiles, "entries": entries, "contents": contents, "leaf_directories": leafDirectories,
                "empty_tiles_left_out": emptyTilesLeftOut, "off_grid_tiles_left_out": offGridTilesLeftOut,
            ]
            var fields = counts.mapValues { JSONValue.number(Double($0)) }
            fields["path"] = .string(path)
            fields["source"] = .string(source)
            fields["bytes"] = .number(Double(bytes))
            return .object(fields)
        }
    }

    private let files: TiledSourceFiles

    /// `source`: the one tiled source to write (its id in the pack's style); nil: every one.
    public init(database: OfflineDatabase, pack: Pack, source: String? = nil) {
        files = TiledSourceFiles(database: database, pack: pack, only: source)
    }

    /// Writes the archives and says what each holds; see `TiledSourceFiles.export` for sources without tiles.
    public func write(to out: String) throws -> FileExportSummary<File> {
        try files.export(to: out, fileExtension: "pmtiles", write)
    }

    private func write(_ target: TiledSourceFiles.Target, style: PackStyle) throws -> File? {
        // A raster source's file extension is its format; anything else is vector.
        let type = PMTilesImport.formats.first { $0.value == target.source.fileExtension }?.key ?? .mvt
        let writer = try PMTilesWriter(path: target.path)
        var file = File(path: target.path, source: target.source.id)
        let inflater = Inflater()
        try files.database.forEachPackTile(target.columns) { z, x, storedY, data in
            let y = target.source.row(storedY, z: z)
            guard (0...PMTilesTileID.deepestZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
                file.offGridTilesLeftOut += 1
                return
            }
            guard let bytes = try Self.exportBytes(data, vector: type == .mvt, inflater: inflater) else {
                file.emptyTilesLeftOut += 1
                return
            }
            try writer.add(z: z, x: x, y: y, data: bytes)
            file.tiles += 1
        }
        guard file.tiles > 0 else { return nil }
        // The source's hash as its MBTiles export holds the tiles (martin's order: a second walk).
        let hash = try PackHash.compute(target.source, in: files.database)?.hash
        let metadata = PMTilesExportMetadata(target: target, pack: files.pack, style: style, hash: hash)
        var header = PMTilesHeader()
        header.tileType = type
        header.tileCompression = type == .mvt ? .gzip : .none
        header.minPosition = Position(longitude: metadata.extent.west, latitude: metadata.extent.south)
        header.maxPosition = Position(longitude: metadata.extent.east, latitude: metadata.extent.north)
        (header.center, header.centerZoom) = metadata.center
        let summary = try writer.finish(header: header, metadata: metadata.json)
        (file.entries, file.contents, file.bytes) = (summary.entries, summary.contents, summary.fileBytes)
        file.leafDirectories = summary.leafDirectories
        return file
    }

    /// A tile's bytes in the archive, as its MBTiles export holds them (`MBTilesTiles`); nil when its content is empty.
    static func exportBytes(_ stored: StoredData, vector: Bool, inflater: Inflater) throws -> Data? {
        guard let raw = stored.bytes else { return nil }
        return try raw.withUnsafeBytes { bytes in
            try MBTilesTiles.withExportBytes(StoredBytes(bytes: bytes, compressed: stored.compressed), vector: vector,
                                             inflater: inflater) { export -> Data? in
                if let content = export.content {
                    guard !content.isEmpty else { return nil }
                } else if Zlib.isGzip(bytes) {
                    guard try ServedTile.content(of: stored)?.isEmpty == false else { return nil }
                } else if bytes.isEmpty {
                    return nil
                }
                return export.data
            }
        }
    }
}
