import Interchange
import PackStore

/// `packfs import DB FILE.mbtiles [--name N]`: `MBTilesImport` does the work; this prints the pack
/// it made.
extension ImportCommand {
    /// The file is judged before the database is opened: none is created for a bad file.
    func importMBTiles() throws {
        let source = try MBTilesImport(path: file)
        let database = try db.openForChange()
        defer { try? database.close() }
        let summary = try source.write(into: database, name: name)
        if output.json {
            printJSON(.object([
                "pack": .string(summary.pack.name), "tiles": .number(Double(summary.tiles)),
                "min_zoom": .number(Double(summary.zooms.lowerBound)),
                "max_zoom": .number(Double(summary.zooms.upperBound)),
            ]))
        } else {
            print("pack \(summary.pack.name): \(summary.tiles) tiles, zooms \(summary.zooms.lowerBound)-\(summary.zooms.upperBound)")
        }
    }
}
