import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs import DB FILE.mbtiles [--name N]`: an MBTiles file as a pack of its own (`ImportedPack`): TMS rows (always,
/// as the spec and MapLibre Native say, whatever `scheme` says) flipped to XYZ, metadata as the pack's TileJSON.
public struct MBTilesImport: PackImport {
    public let path: String
    /// The new pack's name; nil for the file's name without its extension.
    public let name: String?
    /// Import a file whose `agg_tiles_hash` disagrees with its tiles (refused otherwise).
    public let acceptHashMismatch: Bool
    private let reader: MBTilesReader
    private let tileJSON: JSONValue
    /// The file's `agg_tiles_hash` row, checked against its tiles while they are stored.
    private let storedHash: String?

    /// Reads the metadata: a file that is not MBTiles is refused before any database is opened for it.
    public init(path: String, name: String? = nil, acceptHashMismatch: Bool = false) throws {
        self.path = path
        self.name = name
        self.acceptHashMismatch = acceptHashMismatch
        reader = try MBTilesReader.open(path)
        do {
            let metadata = try reader.metadata()
            tileJSON = Self.tileJSON(from: metadata)
            storedHash = metadata["agg_tiles_hash"]
        } catch {
            reader.close()
            throw error
        }
    }

    /// Stores the file as a pack and closes the file.
    @discardableResult
    public func write(into database: OfflineDatabase) throws -> ImportedPack.Summary {
        defer { reader.close() }
        let names = ImportedPack.Names(path: path, name: name)
        return try ImportedPack.write(
            into: database, name: names.pack, scheme: .mbtiles, fileName: names.file, tileJSON: tileJSON
        ) { store in
            var hash = TileSetHash()
            try reader.forEachTile { z, column, tmsRow, data in
                guard let y = Self.xyzRow(z: z, tmsRow: tmsRow) else {
                    throw InterchangeError.tileOutsideGrid(
                        file: names.file, tile: "\(z)/\(column)/\(tmsRow) (TMS row)", grid: "the tile grid")
                }
                if storedHash != nil { hash.add(z: z, column: column, tmsRow: tmsRow, data: data) }
                try store((z: z, x: column, y: y, data: data))
            }
            try checkHash(hash.hex, file: names.file)
        }
    }

    /// Inside the import's transaction: a mismatch throws, and nothing is written.
    private func checkHash(_ computed: String, file: String) throws {
        guard let storedHash, !acceptHashMismatch,
            storedHash.trimmedSpaces.uppercased() != computed
        else { return }
        throw InterchangeError.hashMismatch(file: file, stored: storedHash, computed: computed)
    }

    /// The XYZ row of TMS row `row` of zoom `z`; nil off the grid (checked before the arithmetic: both are the file's).
    static func xyzRow(z: Int, tmsRow row: Int) -> Int? {
        guard (0...ImportedPack.deepestZoom).contains(z), (0..<(1 << z)).contains(row) else { return nil }
        return (1 << z) - 1 - row
    }

    /// The metadata rows as TileJSON fields (`ImportedPack` drops what MapLibre would refuse); `json` gives the layers.
    static func tileJSON(from metadata: [String: String]) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        for key in ["name", "description", "attribution", "version", "format"] {
            if let value = metadata[key] { fields[key] = .string(value) }
        }
        for key in ["bounds", "center"] {
            if let numbers = metadata[key].flatMap(numbers) { fields[key] = .array(numbers.map(JSONValue.number)) }
        }
        for key in ["minzoom", "maxzoom"] {
            if let zoom = metadata[key].flatMap(numbers), zoom.count == 1 { fields[key] = .number(zoom[0]) }
        }
        let layers = metadata["json"].flatMap { JSONValue.parse(Data($0.utf8))?["vector_layers"] }
        if let layers, layers.array != nil { fields["vector_layers"] = layers }
        // Every row, for the export to write again (MBTilesMetadata.keptKey).
        fields[MBTilesMetadata.keptKey] = .object(metadata.mapValues(JSONValue.string))
        return .object(fields)
    }

    /// "24.9, 60.1,25" as numbers; nil when any part is not a finite number.
    private static func numbers(_ text: String) -> [Double]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0.trimmedSpaces) }
        guard numbers.count == parts.count, numbers.allSatisfy(\.isFinite) else { return nil }
        return numbers
    }
}
