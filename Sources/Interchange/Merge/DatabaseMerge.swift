import FoundationEssentials
import PackStore
import SQLiteDB

/// Merging another offline database (MapLibre Native's or the Mapbox SDK's legacy one) into this one, as MapLibre's
/// `mergeOfflineRegions` and Mapbox's `addContentsOfFile` do. `init` copies, checks and migrates the file (`SideCopy`)
/// before any target is opened; `write(into:)` is one transaction with the copy attached: the caps (`MergeLimits`), the
/// packs (`MergedRegions`), the rows (`MergedTable`), then the ambient cache trimmed; any error rolls all of it back.
/// Unlike MapLibre, the side's PackFS pack states come along, and versions 2 to 5 are migrated, not refused.
public final class DatabaseMerge: PackImport {
    /// The file to merge, as given.
    public let path: String
    public let options: MergeOptions
    private let copy: SideCopy
    private let sidePacks: [SidePack]

    /// Copies the file and checks the copy: a file that cannot be merged is refused here.
    public init(path: String, options: MergeOptions = MergeOptions()) throws {
        self.path = path
        self.options = options
        copy = try SideCopy(of: path)
        do {
            sidePacks = try copy.reading { side in
                try side.packs().map { pack in
                    let status = try side.status(of: pack.id)
                    return SidePack(pack: pack, status: status == PackStatus(state: .inactive) ? nil : status)
                }
            }
        } catch {
            copy.remove()
            throw error
        }
    }

    deinit { copy.remove() }

    @discardableResult
    public func write(into database: OfflineDatabase) throws -> MergeReport {
        try database.write(attaching: copy.path) { batch, db in try merge(batch, db) }
    }

    private func merge(_ batch: StoreBatch, _ db: Database) throws -> MergeReport {
        try MergeLimits.check(db, options, file: path)
        let regions = try MergedRegions.merge(sidePacks, batch, db)
        let now = Int64(Date().timeIntervalSince1970)
        var report = MergeReport(file: path)
        report.tiles = try MergedTable.tiles.merge(db, now: now)
        report.resources = try MergedTable.resources.merge(db, now: now)
        try MergedRegions.dropMapping(db)
        report.evicted = try batch.trimAmbient()
        let names = Dictionary(try batch.packs().map { ($0.id, $0.name) }) { first, _ in first }
        report.packs = regions.map { region in
            MergeReport.PackEntry(
                sideName: region.side.pack.name, name: names[region.target] ?? "region-\(region.target.rawValue)",
                id: region.target, added: region.added)
        }
        return report
    }
}
