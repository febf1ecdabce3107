import FoundationEssentials
import PackStore
import SQLiteDB

/// Merging another offline database (MapLibre Native's or the Mapbox SDK's legacy one) into
/// this one, as MapLibre's `mergeOfflineRegions` and Mapbox's `addContentsOfFile` do:
///
/// 1. The file is copied; the copy is checked (SQLite, whole, the offline tables and columns,
///    a schema version PackFS reads) and migrated to version 6, before any target is opened.
///    The user's file is only read; the copy is removed with this value.
/// 2. `write(into:)`: one write transaction on the target, with the copy attached: the tile caps are checked
///    before anything is written; side packs are matched or added (`MergedRegions`); tiles and
///    resources are deduplicated by key, the newer data kept in the target's rows, ids kept
///    (`MergedTable`); memberships added; the ambient cache trimmed to its limit. Any error
///    rolls all of it back.
///
/// As in MapLibre's merge, only what the side's packs hold comes (the side's ambient cache stays
/// behind). Unlike MapLibre, the side's own PackFS pack states come with its packs, and versions
/// 2 to 5 are migrated rather than refused.
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
