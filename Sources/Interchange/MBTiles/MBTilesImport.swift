import Foundation
import PackStore
import StyleModel

/// `packfs import DB FILE.mbtiles [--name N]`: an MBTiles file becomes a pack of its own through
/// the writer both file importers share (`ImportedPack`), in one transaction: the file's TMS rows
/// flipped to XYZ, its tile bytes stored as they are, its metadata as the pack's TileJSON.
/// MBTiles rows are always TMS (the spec; MapLibre Native reads them so too), whatever a
/// `scheme` row says.
public enum MBTilesImport {
    @discardableResult
    public static func importFile(_ path: String, into database: OfflineDatabase, name: String? = nil) throws
        -> ImportedPack.Summary
    {
        let reader = try MBTilesReader.open(path)
        defer { reader.close() }
        let fileName = URL(fileURLWithPath: path).lastPathComponent
        let packName = name ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let tileJSON = tileJSON(from: try reader.metadata())
        return try ImportedPack.write(
            into: database, name: packName, scheme: .mbtiles, fileName: fileName, tileJSON: tileJSON
        ) { store in
            try reader.forEachTile { z, column, tmsRow, data in
                guard let y = xyzRow(z: z, tmsRow: tmsRow) else {
                    throw InterchangeError("\(fileName): tile \(z)/\(column)/\(tmsRow) (TMS row) lies outside the tile grid")
                }
                try store((z: z, x: column, y: y, data: data))
            }
        }
    }

    /// The XYZ row of TMS row `row` of zoom `z`; nil outside zooms 0 to `ImportedPack.deepestZoom`
    /// or outside the zoom's rows (checked before the arithmetic: both come from the file).
    static func xyzRow(z: Int, tmsRow row: Int) -> Int? {
        guard (0...ImportedPack.deepestZoom).contains(z), (0..<(1 << z)).contains(row) else { return nil }
        return (1 << z) - 1 - row
    }

    /// The metadata rows as TileJSON fields (`ImportedPack` checks them and drops what MapLibre
    /// would refuse): text fields as they are; `bounds` and `center` from their comma-separated
    /// numbers; zooms as numbers; `vector_layers` from the `json` row.
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
        if let json = metadata["json"], let layers = JSONValue.parse(Data(json.utf8))?["vector_layers"], layers.array != nil {
            fields["vector_layers"] = layers
        }
        return .object(fields)
    }

    /// "24.9, 60.1,25" as numbers; nil when any part is not a finite number.
    private static func numbers(_ text: String) -> [Double]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == parts.count, numbers.allSatisfy(\.isFinite) else { return nil }
        return numbers
    }
}
