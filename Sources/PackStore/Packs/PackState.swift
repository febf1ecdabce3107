import Basics
import FoundationEssentials
import SQLiteDB

/// A pack's download state, as `user.packfs.state` shows it.
public enum PackState: String, Sendable, CaseIterable {
    case inactive, active, complete, error
}

/// What the downloader last recorded for a pack (`packfs_pack_state`); a pack without one is inactive, needing nothing.
public struct PackStatus: Equatable, Sendable {
    public var state: PackState
    public var error: String?
    /// Resources plus tiles the definition needs (MapLibre counts tiles as resources too).
    public var requiredResources: Int
    public var requiredTiles: Int
    public var requiredIsPrecise: Bool

    public init(
        state: PackState, error: String? = nil, requiredResources: Int = 0, requiredTiles: Int = 0,
        requiredIsPrecise: Bool = false
    ) {
        self.state = state
        self.error = error
        self.requiredResources = requiredResources
        self.requiredTiles = requiredTiles
        self.requiredIsPrecise = requiredIsPrecise
    }
}

extension OfflineDatabase {
    public func status(of region: RegionID) throws -> PackStatus {
        // Without the lock another process may change the file: read afresh every time.
        guard mode != .readOnly else { return try read { db in try Self.status(of: region, db) } }
        return try statuses.value(region) { try read { db in try Self.status(of: region, db) } }
    }

    static func status(of region: RegionID, _ db: Database) throws -> PackStatus {
        guard try db.tableExists("packfs_pack_state"),
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM packfs_pack_state WHERE region_id = ?", arguments: [region.rawValue])
        else { return PackStatus(state: .inactive) }
        // Own bookkeeping, redone by the next run: a damaged value reads as "unknown" (inactive, not counted) rather
        // than making the pack's files unreadable. Redacted again: an older PackFS or an app stored it as it came.
        func value<T: DatabaseValueConvertible>(_ column: String) -> T? { try? row.decode(forColumn: column) }
        return PackStatus(
            state: value("state").flatMap(PackState.init(rawValue:)) ?? .inactive,
            error: (value("error") as String?).map(Redaction.text),
            requiredResources: max(0, value("required_resources") ?? 0), requiredTiles: max(0, value("required_tiles") ?? 0),
            requiredIsPrecise: value("required_is_precise") ?? false)
    }

    public func setStatus(_ status: PackStatus, of region: RegionID) throws {
        try write { batch in try batch.setStatus(status, of: region) }
    }
}

extension StoreBatch {
    /// Records a pack's state inside a larger transaction, its error redacted (others see it in progress.json,
    /// packs.json, `packfs list`). `PackStatusCache` drops the status once the transaction commits, not before: a
    /// read in between would keep the old row.
    public func setStatus(_ status: PackStatus, of region: RegionID) throws {
        try Migrations.ensureBookkeeping(db)
        if let statuses { db.afterNextTransaction(onCommit: { _ in statuses.invalidate(region) }) }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO packfs_pack_state (region_id, state, error, required_resources,
                  required_tiles, required_is_precise, updated) VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                region.rawValue, status.state.rawValue, status.error.map(Redaction.text), status.requiredResources,
                status.requiredTiles, status.requiredIsPrecise, now,
            ])
    }
}
