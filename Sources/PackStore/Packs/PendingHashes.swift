import SQLiteDB

/// Packs whose hashes are owed (`packfs_pending_hashes`). A pack is `complete` once its last resource is stored;
/// its hash, a read of every tile, is computed after in the background (PackLifecycle's `PackHasher`), at the next
/// mount if the daemon stops first. A later change of its tiles (a refresh, a patch) asks again with a new token,
/// and a hash under an older one is not recorded: its walk may have met both versions. Removal drops the request.
extension StoreBatch {
    /// Asks for the pack's hashes (replacing an earlier request); returns the request's token.
    @discardableResult
    public func requestHashes(of region: RegionID) throws -> Int64 {
        try Migrations.ensureBookkeeping(db)
        let token = Int64.random(in: 1...Int64.max)
        try db.execute(
            sql: "INSERT OR REPLACE INTO packfs_pending_hashes (region_id, token) SELECT id, ? FROM regions WHERE id = ?",
            arguments: [token, region.rawValue])
        return token
    }

    /// A request owed for the pack gets a new token: its tiles changed under it (see `PendingHashes`).
    public func renewHashRequest(of region: RegionID) throws {
        guard try db.tableExists("packfs_pending_hashes") else { return }
        try db.execute(
            sql: "UPDATE packfs_pending_hashes SET token = ? WHERE region_id = ?",
            arguments: [Int64.random(in: 1...Int64.max), region.rawValue])
    }

    /// Records `hashes` as the pack's and ends the request if `token` is still pending; false (nothing written) when
    /// another request or a removal came since.
    public func recordHashes(_ hashes: [RecordedHash], of region: RegionID, pending token: Int64) throws -> Bool {
        guard try endHashRequest(of: region, token: token) else { return false }
        try recordHashes(hashes, of: region)
        return true
    }

    /// Ends the request `token` without a hash (its tiles do not decode: the last recorded hash stays, and `packfs
    /// verify` names the tile); false when it is no longer pending.
    @discardableResult
    public func endHashRequest(of region: RegionID, token: Int64) throws -> Bool {
        guard try db.tableExists("packfs_pending_hashes") else { return false }
        try db.execute(
            sql: "DELETE FROM packfs_pending_hashes WHERE region_id = ? AND token = ?", arguments: [region.rawValue, token])
        return db.changesCount > 0
    }
}

extension OfflineDatabase {
    public func pendingHashes() throws -> [(region: RegionID, token: Int64)] {
        try read { db in
            guard try db.tableExists("packfs_pending_hashes") else { return [] }
            return try Row.fetchAll(db, sql: "SELECT region_id, token FROM packfs_pending_hashes ORDER BY region_id")
                .compactMap { row in
                    guard let id: Int64 = row.lenient("region_id"), let token: Int64 = row.lenient("token") else { return nil }
                    return (RegionID(rawValue: id), token)
                }
        }
    }

    public func hashesPending(of region: RegionID) throws -> Bool {
        try read { db in try Self.hashesPending(of: region, db) }
    }

    static func hashesPending(of region: RegionID, _ db: Database) throws -> Bool {
        guard try db.tableExists("packfs_pending_hashes") else { return false }
        return try Int.fetchOne(db, sql: "SELECT 1 FROM packfs_pending_hashes WHERE region_id = ?", arguments: [region.rawValue]) != nil
    }
}
