import Basics
import FoundationEssentials
import SQLiteDB

/// What a pack was estimated to need (tiles and bytes per source and zoom), recorded by the downloader when it
/// plans (`packfs_estimate`) and shown in `progress.json` as `estimate`. The JSON is the downloader's
/// (`Estimate.json`), kept as given, so the mount shows exactly what `packfs estimate` prints without knowing its
/// fields. The next plan replaces the row; it dies with its region through the cascade.
extension OfflineDatabase {
    /// The recorded estimate; nil when none was (no plan yet, an app's pack) or it is damaged: the next plan redoes it.
    static func estimate(of region: RegionID, _ db: Database) throws -> JSONValue? {
        guard try db.tableExists("packfs_estimate") else { return nil }
        let text = try? String.fetchOne(
            db, sql: "SELECT json FROM packfs_estimate WHERE region_id = ?", arguments: [region.rawValue])
        // Redacted: its sources' URL templates may carry keys, and progress.json shows it.
        return text.flatMap { $0 }.flatMap { JSONValue.parse(Data(Redaction.text($0).utf8)) }
    }

    public func setEstimate(_ estimate: JSONValue, of region: RegionID) throws {
        try write { batch in try batch.setEstimate(estimate, of: region) }
    }
}

extension StoreBatch {
    /// Records a pack's estimate inside a larger transaction; a pack that is gone gets none.
    public func setEstimate(_ estimate: JSONValue, of region: RegionID) throws {
        try Migrations.ensureBookkeeping(db)
        try db.execute(
            sql: "INSERT OR REPLACE INTO packfs_estimate (region_id, json) SELECT id, ? FROM regions WHERE id = ?",
            arguments: [estimate.compactText, region.rawValue])
    }
}
