import SQLiteDB

/// A refresh asked for and not finished (`packfs_refresh`), kept so a refresh cut by a kill or unmount goes on.
/// The row holds `since`, one second after the request: every row the refresh revalidates or stores is stamped
/// `accessed` no earlier (`OfflineDatabase.write(notBefore:)`) and every earlier stamp predates the request, so
/// "accessed >= since" means done since the request, with no per-row bookkeeping. Completion or removal drops it.
extension OfflineDatabase {
    /// Records a refresh of `region` asked for now, replacing a pending one (a new `touch` asks for everything again),
    /// and marks the pack `active` in the same transaction, so a kill before its run still resumes it; returns `since`.
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
