import Basics
import FoundationEssentials
import SQLiteDB

/// Removing a pack without making anyone wait for its rows (docs/internals.md, "Removal"): `removePack` commits
/// only a mark (`packfs_removals`), and `finishRemovals` deletes the rows in bounded transactions, so the writer is
/// never held long. A crash leaves the mark, and the next mount (or `packfs remove`) goes on from it.
enum Removals {
    static let table = "packfs_removals"
    /// Memberships deleted per transaction: the writer is held briefly (triggers included), a pack goes in few commits.
    static let batchRows = 5_000
    /// Pages returned to the file system per `incremental_vacuum` step (16 MiB of 4 KiB pages).
    static let vacuumPages = 4_096

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS packfs_removals (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          since INTEGER NOT NULL
        )
        """,
    ]

    /// `WHERE` clause leaving out packs being removed (none when the table is not there yet).
    static func visible(_ db: Database) throws -> String {
        try db.tableExists(table) ? "WHERE id NOT IN (SELECT region_id FROM packfs_removals)" : ""
    }

    static func marked(_ db: Database) throws -> [RegionID] {
        guard try db.tableExists(table) else { return [] }
        return try Int64.fetchAll(db, sql: "SELECT region_id FROM packfs_removals ORDER BY since, region_id")
            .map(RegionID.init(rawValue:))
    }

    /// One bounded step of `region`'s removal; false once the pack is gone.
    static func step(_ region: RegionID, _ db: Database) throws -> Bool {
        // First, so that the memberships going find no run to split.
        try Runs.clear(region, db)
        // What a refresh staged, bounded too (the cascade would delete it all at once).
        if try Staging.removalStep(region, db) { return true }
        for members in ["region_tiles", "region_resources"] {
            try db.execute(sql: """
                DELETE FROM \(members) WHERE rowid IN (SELECT rowid FROM \(members) WHERE region_id = ? LIMIT ?)
                """, arguments: [region.rawValue, batchRows])
            if db.changesCount > 0 { return true }
        }
        try Extents.remove(region, db)
        try db.execute(sql: "DELETE FROM regions WHERE id = ?", arguments: [region.rawValue])
        return false
    }
}

/// Space removed packs still hold (`OfflineDatabase.reclaiming`).
public struct Reclaiming: Equatable, Sendable {
    /// Removed packs whose rows are still being deleted; 0 once they are, while the ambient trim and vacuum go on.
    public var packs: Int
    /// Their memberships still in the file; nil when one was removed before its figures were counted.
    public var rows: Int?
}

extension OfflineDatabase {
    /// Marks the pack removed, at once whatever its size: it is gone for every reader from here on. Its rows go after,
    /// on a mount's own thread or, in a command, before this returns.
    public func removePack(_ id: RegionID) throws {
        defer { statuses.invalidate(id) }
        try writePacks { batch in
            let db = batch.database
            guard try Self.packs(db).contains(where: { $0.id == id }) else { throw StoreError.regionNotFound(id) }
            for statement in Removals.statements { try db.execute(sql: statement) }
            try db.execute(
                sql: "INSERT OR IGNORE INTO packfs_removals (region_id, since) VALUES (?, ?)",
                arguments: [id.rawValue, batch.now])
        }
        guard mode == .mount else { return try finishRemovals() }
        remover.wake { [weak self] stopped in self?.finishRemovalsLogging(stopped) }
    }

    /// Packs removed whose rows are still being deleted.
    public func pendingRemovals() throws -> Int { try read(Removals.marked).count }

    /// Whether every removal is finished, its ambient trim and its freed pages included.
    public func removalsSettled() throws -> Bool { try pendingRemovals() == 0 && remover.idle }

    /// What removals have to give back (`status.json`'s `reclaiming`) from kept figures; nil once nothing is left.
    public func reclaiming() throws -> Reclaiming? {
        // Asked before the marks are read: a round that ends in between shows as one more read.
        let busy = !remover.idle
        return try read { db in
            let marked = try Removals.marked(db)
            guard busy || !marked.isEmpty else { return nil }
            var rows: Int? = 0
            for region in marked {
                // The triggers take each membership deleted off the pack's kept figures.
                guard let counts = try Counting.counts(of: region, db), let sum = rows else {
                    rows = nil
                    continue
                }
                let (withTiles, tilesOverflow) = sum.addingReportingOverflow(counts.tiles)
                let (total, overflow) = withTiles.addingReportingOverflow(counts.resources)
                rows = tilesOverflow || overflow ? nil : total
            }
            return Reclaiming(packs: marked.count, rows: rows)
        }
    }

    /// Goes on with removals a crash or an unmount cut short (a mount calls it at start).
    public func resumeRemovals() {
        guard mode == .mount, (try? read(Removals.marked).isEmpty) == false else { return }
        remover.wake { [weak self] stopped in self?.finishRemovalsLogging(stopped) }
    }

    private func finishRemovalsLogging(_ stopped: () -> Bool) {
        do {
            try finishRemovals(stopped: stopped)
        } catch {
            if !stopped() { StandardError.write("packfs: removing a pack's rows failed (the next mount goes on): \(error)\n") }
        }
    }

    /// Deletes the rows of every marked pack in bounded transactions, then trims the ambient cache and returns the
    /// freed pages, a step at a time. `stopped` ends it between steps.
    public func finishRemovals(stopped: () -> Bool = { false }) throws {
        var removedAny = false
        for region in try read(Removals.marked) {
            while !stopped(), try write({ try Removals.step(region, $0.database) }) {}
            if stopped() { return }
            removedAny = true
        }
        guard removedAny else { return }
        while !stopped(), try write({ try AmbientCache.trimStep($0.database, to: AmbientCache.limit($0.database)) }) {}
        while !stopped(), try incrementalVacuumStep() {}
    }

    /// Returns up to `Removals.vacuumPages` free pages; false once none is left.
    func incrementalVacuumStep() throws -> Bool {
        try wrap {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA incremental_vacuum(\(Removals.vacuumPages))")
                return try (Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0) > 0
            }
        }
    }
}
