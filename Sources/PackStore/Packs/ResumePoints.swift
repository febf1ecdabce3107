import SQLiteDB

/// Where a pack's download goes on (`packfs_resume_points`; docs/internals.md, "Resume points"), so a resumed
/// country need not look up every stored tile from its plan's start. The row names its plan (the downloader's
/// fingerprint), its refresh (`since`; 0 for a download) and a position before which every planned tile is
/// committed and in the pack. The position goes when the pack completes; the plan stays, saying the pack converged
/// to it (a resume of the same plan need not look for tiles to drop). A new region row or a removal drops the row.
public struct ResumePoint: Equatable, Sendable {
    public var plan: String
    public var since: Int64
    /// Tiles of the plan, in its order, known stored and in the pack; nil once complete.
    public var position: Int?

    public init(plan: String, since: Int64, position: Int?) {
        self.plan = plan
        self.since = since
        self.position = position
    }
}

enum ResumePoints {
    static let table = "packfs_resume_points"

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS packfs_resume_points (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          plan TEXT NOT NULL,
          since INTEGER NOT NULL,
          position INTEGER
        )
        """,
        """
        CREATE TRIGGER IF NOT EXISTS packfs_resume_points_region_insert AFTER INSERT ON regions
        BEGIN DELETE FROM packfs_resume_points WHERE region_id = new.id; END
        """,
    ]
}

extension OfflineDatabase {
    /// The pack's resume point, if a run recorded one.
    public func resumePoint(of region: RegionID) throws -> ResumePoint? {
        try read { db -> ResumePoint? in
            guard try db.tableExists(ResumePoints.table),
                let row = try Row.fetchOne(
                    db, sql: "SELECT plan, since, position FROM packfs_resume_points WHERE region_id = ?",
                    arguments: [region.rawValue])
            else { return nil }
            // PackFS's own bookkeeping: a damaged row is no resume point (the run checks everything).
            guard let plan: String = try? row.decode(forColumn: "plan"), let since: Int64 = try? row.decode(forColumn: "since")
            else { return nil }
            let position: Int? = try? row.decode(forColumn: "position")
            return ResumePoint(plan: plan, since: since, position: position.flatMap { $0 >= 0 ? $0 : nil })
        }
    }
}

extension StoreBatch {
    public func setResumePoint(_ point: ResumePoint, of region: RegionID) throws {
        for statement in ResumePoints.statements { try db.execute(sql: statement) }
        try db.execute(
            sql: "INSERT OR REPLACE INTO packfs_resume_points (region_id, plan, since, position) VALUES (?, ?, ?, ?)",
            arguments: [region.rawValue, point.plan, point.since, point.position])
    }
}
