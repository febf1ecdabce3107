import FoundationEssentials
import SQLiteDB

/// The hash each tile set of a pack had when it last became whole (`packfs_pack_hashes`): martin's `agg_tiles_hash`
/// of the tiles as its MBTiles export holds them, and their count, computed above PackStore (StyleModel's
/// `PackTileHash`) and kept as given. A new recording replaces the pack's rows; the cascade drops them.
public struct RecordedHash: Equatable, Sendable {
    public var urlTemplate: String
    public var pixelRatio: Int
    /// 32 uppercase hex digits.
    public var hash: String
    public var tiles: Int
    /// Seconds since 1970.
    public var recorded: Int64
    /// The export rule the hash was made under (StyleModel's `ExportRule`); 1 for a row older than rule numbers.
    public var rule: Int

    public init(urlTemplate: String, pixelRatio: Int, hash: String, tiles: Int, recorded: Int64, rule: Int) {
        self.urlTemplate = urlTemplate
        self.pixelRatio = pixelRatio
        self.hash = hash
        self.tiles = tiles
        self.recorded = recorded
        self.rule = rule
    }
}

extension OfflineDatabase {
    /// The pack's recorded hashes by template and pixel ratio; empty when none was recorded (an app's pack, an
    /// unfinished download). Damaged rows (wrong types) are left out.
    public func recordedHashes(of region: RegionID) throws -> [RecordedHash] {
        try read { db in
            guard try db.tableExists("packfs_pack_hashes") else { return [] }
            let rule = try Self.hasRuleColumn(db) ? "rule" : "1 AS rule"
            let rows = try Row.fetchAll(
                db, sql: """
                    SELECT url_template, pixel_ratio, hash, tiles, recorded, \(rule) FROM packfs_pack_hashes
                      WHERE region_id = ? ORDER BY url_template, pixel_ratio
                    """, arguments: [region.rawValue])
            return rows.compactMap { row in
                guard let template: String = row.lenient("url_template"), let ratio: Int = row.lenient("pixel_ratio"),
                    let hash: String = row.lenient("hash"), let tiles: Int = row.lenient("tiles"),
                    let recorded: Int64 = row.lenient("recorded"), let rule: Int = row.lenient("rule")
                else { return nil }
                return RecordedHash(urlTemplate: template, pixelRatio: ratio, hash: hash, tiles: tiles, recorded: recorded, rule: rule)
            }
        }
    }

    /// The packs with a hash recorded under a rule older than `rule`.
    public func packsWithHashes(before rule: Int) throws -> [RegionID] {
        try read { db in
            guard try db.tableExists("packfs_pack_hashes") else { return [] }
            let filter = try Self.hasRuleColumn(db) ? "WHERE rule < \(rule)" : ""
            return try Int64.fetchAll(db, sql: "SELECT DISTINCT region_id FROM packfs_pack_hashes \(filter) ORDER BY region_id")
                .map(RegionID.init(rawValue:))
        }
    }

    /// Whether `packfs_pack_hashes` has its `rule` column (added by `Migrations.ensureBookkeeping`).
    static func hasRuleColumn(_ db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pragma_table_info('packfs_pack_hashes') WHERE name = 'rule'") == 1
    }

    /// Replaces the pack's recorded hashes with `hashes`, in one transaction.
    public func recordHashes(_ hashes: [RecordedHash], of region: RegionID) throws {
        try write { batch in try batch.recordHashes(hashes, of: region) }
    }
}

extension StoreBatch {
    /// Replaces the pack's recorded hashes inside a larger transaction; a pack that is gone gets none.
    public func recordHashes(_ hashes: [RecordedHash], of region: RegionID) throws {
        try Migrations.ensureBookkeeping(db)
        try db.execute(sql: RefreshSwitch.dropHashes, arguments: [region.rawValue])
        for hash in hashes { try recordHash(hash, of: region) }
    }

    /// Replaces one tile set's recorded hash of the pack (a patch changed that set only).
    public func replaceRecordedHash(_ hash: RecordedHash, of region: RegionID) throws {
        try Migrations.ensureBookkeeping(db)
        try db.execute(sql: RefreshSwitch.dropHash, arguments: [region.rawValue, hash.urlTemplate, hash.pixelRatio])
        try recordHash(hash, of: region)
    }

    /// Forgets the recorded hashes of packs whose tiles changed under them (a tile row shared with a patched pack):
    /// a hash of what no longer is would make `packfs verify` report damage where there is none.
    public func forgetRecordedHashes(of regions: some Sequence<RegionID>) throws {
        guard try db.tableExists("packfs_pack_hashes") else { return }
        let pending = try db.tableExists("packfs_pending_hashes")
        for region in regions {
            try db.execute(sql: RefreshSwitch.dropHashes, arguments: [region.rawValue])
            // A hash owed would be of the changed tiles, a walk of which may be under way.
            if pending { try db.execute(sql: "DELETE FROM packfs_pending_hashes WHERE region_id = ?", arguments: [region.rawValue]) }
        }
    }

    private func recordHash(_ hash: RecordedHash, of region: RegionID) throws {
        try db.execute(
            sql: """
                INSERT INTO packfs_pack_hashes (region_id, url_template, pixel_ratio, hash, tiles, recorded, rule)
                  SELECT id, ?, ?, ?, ?, ?, ? FROM regions WHERE id = ?
                """,
            arguments: [hash.urlTemplate, hash.pixelRatio, hash.hash, hash.tiles, hash.recorded, hash.rule, region.rawValue])
    }
}
