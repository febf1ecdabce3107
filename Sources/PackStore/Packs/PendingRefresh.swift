import SQLiteDB

/// A refresh asked for and not finished (`packfs_refresh`): it outlives the process, so a refresh
/// cut by a kill or an unmount goes on where it was instead of being lost or starting over.
///
/// The row holds `since`, one second after the request: every row the refresh revalidates or
/// stores is stamped `accessed` no earlier than that (`OfflineDatabase.write(notBefore:)`), and
/// every row stamped earlier was written before the request. So "accessed >= since" is exactly
/// "done by this refresh (or stored fresh since it was asked for)", with no per-row bookkeeping:
/// a resumed refresh asks only for the rest. The run that completes deletes the row, in the
/// transaction recording the pack complete; a removal drops it with the pack.
extension OfflineDatabase {
    /// Records a refresh of `region` asked for now (replacing one pending: a new `touch` asks
    /// for everything again) and marks the pack `active`, in one transaction, so that a kill
    /// before its run starts still resumes it. Returns its `since`.
    @discardableResult
    public func requestRefresh(of region: RegionID) throws -> Int64 {
        try write { batch in
            try Migrations.ensureBookkeeping(batch.database)
            let since = batch.now + 1
            try batch.database.execute(
                sql: "INSERT OR REPLACE INTO packfs_refresh (region_id, since) VALUES (?, ?)",
                arguments: [region.rawValue, since])
            var status = try Self.status(of: region, batch.database)
            status.state = .active
            status.error = nil
            try batch.setStatus(status, of: region)
            return since
        }
    }

    /// The `since` of the refresh pending for `region`, or nil when none is.
    public func pendingRefresh(of region: RegionID) throws -> Int64? {
        try read { db in
            guard try db.tableExists("packfs_refresh") else { return nil }
            return try Int64.fetchOne(
                db, sql: "SELECT since FROM packfs_refresh WHERE region_id = ?", arguments: [region.rawValue])
        }
    }
}

extension StoreBatch {
    /// The refresh that began at `since` is done; one asked for since then stays pending.
    public func endRefresh(of region: RegionID, since: Int64) throws {
        guard try db.tableExists("packfs_refresh") else { return }
        try db.execute(
            sql: "DELETE FROM packfs_refresh WHERE region_id = ? AND since = ?", arguments: [region.rawValue, since])
    }
}
