import Basics
import FoundationEssentials
import PMTilesFormat
import PackStore

/// `packfs import DB FILE.pmtiles`: an archive as a pack of its own (`ImportedPack`), tiles as the archive holds them,
/// metadata in the pack's TileJSON. Refused before anything is written: brotli or zstd tiles (no renderer reading the
/// mount inflates them), tile types MapLibre Native does not draw; damage found later rolls all back.
public struct PMTilesImport: PackImport {
    public let path: String
    /// The new pack's name; nil for the file's name without its extension.
    public let name: String?
    private let reader: PMTilesReader
    private let tileJSON: JSONValue

    /// Reads the header and metadata: an archive a pack cannot show is refused before any database is opened for it.
    public init(path: String, name: String? = nil) throws {
        self.path = path
        self.name = name
        reader = try PMTilesReader(path: path)
        let file = ImportedPack.Names(path: path, name: name).file
        let header = reader.header
        guard let format = Self.formats[header.tileType] else {
            throw InterchangeError.unsupported(
                file, detail: "tile type \(header.tileType) is not one a pack shows (mvt, png, jpeg, webp)")
        }
        guard [.none, .gzip, .unknown].contains(header.tileCompression) else {
            throw InterchangeError.unsupported(
                file, detail: "tiles compressed with \(header.tileCompression) cannot be served (gzip or none)")
        }
        tileJSON = Self.tileJSON(try reader.metadata(), header: header, format: format)
    }

    @discardableResult
    public func write(into database: OfflineDatabase) throws -> ImportedPack.Summary {
        let names = ImportedPack.Names(path: path, name: name)
        return try ImportedPack.write(
            into: database, name: names.pack, scheme: .pmtiles, fileName: names.file, tileJSON: tileJSON
        ) { sink in
            try reader.forEachTile { z, x, y, data in try sink((z: z, x: x, y: y, data: data)) }
        }
    }

    /// The TileJSON `format` of each tile type a pack shows (that of a raster source's files too).
    static let formats: [PMTilesHeader.TileType: String] = [.mvt: "pbf", .png: "png", .jpeg: "jpg", .webp: "webp"]

    /// The metadata's TileJSON fields and the header's extent, center and zooms (`ImportedPack` checks each value).
    private static func tileJSON(_ metadata: JSONValue, header: PMTilesHeader, format: String) -> JSONValue {
        var fields: [String: JSONValue] = ["format": .string(format)]
        for key in ["name", "description", "attribution", "version", "vector_layers", "type", "encoding"] {
            fields[key] = metadata[key]
        }
        let (low, high) = (header.minPosition, header.maxPosition)
        fields["bounds"] = .array([low.longitude, low.latitude, high.longitude, high.latitude].map(JSONValue.number))
        fields["center"] = .array([header.center.longitude, header.center.latitude, Double(header.centerZoom)].map(JSONValue.number))
        fields["minzoom"] = .number(Double(header.minZoom))
        fields["maxzoom"] = .number(Double(header.maxZoom))
        return .object(fields)
    }
}
