import SQLiteDB

/// Files `rm` takes out of a pack on a mount ("hand drops"), restorable until they settle, so a mount killed
/// during `rm -r` (an unlink per transaction, then the last rmdir) leaves the whole pack or none, never half
/// (docs/reliability.md). Each drop is recorded in its unlink's transaction and forgotten once settled: the pack
/// rested from unlinks (the mount says when), was removed, or the mount ended cleanly. The next writer holds the
/// lock, so drops still recorded belong to a dead mount: they are undone.
extension OfflineDatabase {
    /// Drops a tile from a pack by hand: unlinked now, restored if the mount dies unsettled.
    public func dropByHand(tile: TileID, from region: RegionID) throws {
        try write { batch in
            try Migrations.ensureBookkeeping(batch.database)
            try batch.database.execute(sql: """
                INSERT INTO packfs_pending_drops (region_id, url, pixel_ratio, z, x, y)
                SELECT ?, url_template, pixel_ratio, z, x, y FROM tiles WHERE id = ?
                """, arguments: [region.rawValue, tile.rawValue])
            try batch.unlink(tile: tile, from: region)
        }
    }

    /// Drops a resource from a pack by hand.
    public func dropByHand(resource: ResourceID, from region: RegionID) throws {
        try write { batch in
            try Migrations.ensureBookkeeping(batch.database)
            try batch.database.execute(sql: """
                INSERT INTO packfs_pending_drops (region_id, url) SELECT ?, url FROM resources WHERE id = ?
                """, arguments: [region.rawValue, resource.rawValue])
            try batch.unlink(resource: resource, from: region)
        }
    }

    /// Makes the hand drops of `region` (of every pack when nil) final.
    public func settleDrops(of region: RegionID? = nil) throws {
        try write { batch in try Self.settleDrops(of: region, batch.database) }
    }

    static func settleDrops(of region: RegionID?, _ db: Database) throws {
        guard try db.tableExists("packfs_pending_drops") else { return }
        if let region {
            try db.execute(sql: "DELETE FROM packfs_pending_drops WHERE region_id = ?", arguments: [region.rawValue])
        } else {
            try db.execute(sql: "DELETE FROM packfs_pending_drops")
        }
    }

    /// Undoes the drops a dead mount left unsettled: each row still stored goes back into its pack. For a row evicted
    /// meanwhile, its complete pack is marked `active`, so the next download fetches just that again.
    static func restoreUnsettledDrops(_ db: Database) throws {
        guard try db.tableExists("packfs_pending_drops") else { return }
        try db.execute(sql: """
            INSERT OR IGNORE INTO region_tiles (region_id, tile_id)
            SELECT d.region_id, t.id FROM packfs_pending_drops d JOIN tiles t ON t.url_template = d.url
              AND t.pixel_ratio = d.pixel_ratio AND t.z = d.z AND t.x = d.x AND t.y = d.y
            WHERE d.z IS NOT NULL;
            INSERT OR IGNORE INTO region_resources (region_id, resource_id)
            SELECT d.region_id, r.id FROM packfs_pending_drops d JOIN resources r ON r.url = d.url
            WHERE d.z IS NULL;
            UPDATE packfs_pack_state SET state = 'active' WHERE state = 'complete' AND region_id IN (
              SELECT region_id FROM packfs_pending_drops d WHERE CASE WHEN d.z IS NULL
                THEN NOT EXISTS (SELECT 1 FROM resources WHERE url = d.url)
                ELSE NOT EXISTS (SELECT 1 FROM tiles WHERE url_template = d.url AND pixel_ratio = d.pixel_ratio
                  AND z = d.z AND x = d.x AND y = d.y) END);
            DELETE FROM packfs_pending_drops;
            """)
    }
}
