import SQLiteDB

/// Runs a daemon had under way when it stopped without unmounting (`packfs_interrupted_runs`), so one pack whose
/// download kills the daemon (a server's answer meeting a bug) cannot take down every mount that resumes it.
/// `under_way` is 1 from a run's start (committed before its first request) until it ends or is suspended; a row
/// still marked at the next mount was cut by a crash. `stops` counts consecutive unclean stops that cut the pack's
/// runs; the mount settles the rows before resuming anything (`settleInterruptedRuns`) and skips a pack cut by each
/// of the last two. A clean stop in between restarts the count; the cascade drops a removed pack's row.
extension OfflineDatabase {
    /// Unclean stops in a row, each cutting a run of the pack, after which a mount no longer resumes it by itself.
    public static let uncleanStopsBeforeGivingUp = 2

    /// A run of `region` starts: marked before it sends anything.
    public func markRunUnderWay(_ region: RegionID) throws {
        try write { batch in
            try Migrations.ensureBookkeeping(batch.database)
            try batch.database.execute(sql: """
                INSERT INTO packfs_interrupted_runs (region_id, under_way) SELECT id, 1 FROM regions WHERE id = ?
                  ON CONFLICT (region_id) DO UPDATE SET under_way = 1
                """, arguments: [region.rawValue])
        }
    }

    /// The run of `region` ended: no crash cut it. One that `finished` (complete, or an error it recorded) also
    /// clears the pack's count: it ran to its end without killing the daemon.
    public func markRunEnded(_ region: RegionID, finished: Bool) throws {
        try write { batch in
            guard try batch.database.tableExists("packfs_interrupted_runs") else { return }
            try batch.database.execute(
                sql: "UPDATE packfs_interrupted_runs SET under_way = 0, stops = CASE WHEN ? THEN 0 ELSE stops END WHERE region_id = ?",
                arguments: [finished, region.rawValue])
        }
    }

    /// At mount, before any run, in one transaction: each run left marked is one more unclean stop for its pack, one
    /// with none marked starts from zero. Returns the packs cut by each of the last `uncleanStopsBeforeGivingUp` stops.
    public func settleInterruptedRuns() throws -> [RegionID] {
        try write { batch in
            let db = batch.database
            guard try db.tableExists("packfs_interrupted_runs") else { return [] }
            try db.execute(sql: "DELETE FROM packfs_interrupted_runs WHERE under_way = 0")
            try db.execute(sql: "UPDATE packfs_interrupted_runs SET under_way = 0, stops = MAX(stops, 0) + 1")
            return try Int64.fetchAll(
                db, sql: "SELECT region_id FROM packfs_interrupted_runs WHERE stops >= ? ORDER BY region_id",
                arguments: [Self.uncleanStopsBeforeGivingUp]
            ).map(RegionID.init(rawValue:))
        }
    }
}
