import Interchange
import PackStore

/// `packfs export DB NAME OUT.mbtiles [--source ID]`: `MBTilesExport` does the work; this prints
/// a line per file written.
extension ExportCommand {
    func exportMBTiles(_ pack: Pack, _ database: OfflineDatabase) throws {
        for file in try MBTilesExport.export(pack, from: database, to: out, source: source) {
            let zooms = "zooms \(file.zooms.lowerBound)-\(file.zooms.upperBound)"
            let skipped = file.skipped > 0 ? " (\(file.skipped) rows outside the tile grid left out)" : ""
            print("\(file.path): source \(file.source), \(file.tiles) tiles, \(zooms)\(skipped)")
        }
    }
}
