import Basics
import FoundationEssentials
import SQLiteDB

/// What a pack was estimated to need (tiles and bytes per source and zoom), recorded by the
/// downloader when it plans the pack and shown in `progress.json` as `estimate` (`packfs_estimate`).
///
/// The JSON is the downloader's (`Estimate.json`): PackStore keeps it as given and hands it back,
/// so the mount shows exactly what `packfs estimate` prints without knowing its fields. The row
/// dies with its region through the cascade; the next plan replaces it.
extension OfflineDatabase {
    /// The recorded estimate (read with the pack's progress), or nil when none was recorded (no
    /// plan made yet, or a pack an app made). Damaged text reads as none: it is PackFS's own
    /// bookkeeping, redone by the next plan.
    static func estimate(of region: RegionID, _ db: Database) throws -> JSONValue? {
        guard try db.tableExists("packfs_estimate") else { return nil }
        // A damaged table or value (wrong columns, not text) reads as none, like damaged state.
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
