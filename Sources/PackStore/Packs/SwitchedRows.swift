import Basics
import FoundationEssentials
import SQLiteDB
import Synchronization

/// What a refresh's switch replaced under a row id while a mount serves the database (`packfs_switched_rows`):
/// the row's version (switches that changed it this mount) and, for `retention`, its bytes before the last one.
/// Each version is another inode (`RowTag`), so a reader sized before a switch reads the old bytes whole, and after
/// that the old inode is stale (docs/mount.md, "Refresh"). Made afresh by each mount, as inode numbers are.
enum SwitchedRows {
    static let table = "packfs_switched_rows"
    /// How long the bytes before a switch stay readable under their old inode.
    static let retention: Int64 = 60

    static let create = """
        CREATE TABLE packfs_switched_rows (
          kind INTEGER NOT NULL,
          row_id INTEGER NOT NULL,
          version INTEGER NOT NULL,
          data BLOB,
          compressed INTEGER NOT NULL DEFAULT 0,
          kept INTEGER NOT NULL DEFAULT 1,
          switched INTEGER NOT NULL,
          PRIMARY KEY (kind, row_id)
        )
        """

    /// At most this many replaced bytes are kept: a refresh that changed more (a country's new data) records only
    /// the new versions and its old inodes are stale at once (an error, not a mix), rather than copy gigabytes.
    static let keptBytesLimit: Int64 = 128 << 20

    /// The rows of `kind` whose bytes the switch of `?1`'s refresh of `?2` replaces, joined to their live row `t`.
    private static func changed(_ kind: SwitchedKind) -> String {
        let (staging, live, match) = kind == .tile
            ? ("packfs_staged_tiles", "tiles", RefreshSwitch.tileMatch) : ("packfs_staged_resources", "resources", "t.url = s.url")
        return """
            \(staging) s CROSS JOIN \(live) t ON \(match)
            WHERE \(RefreshSwitch.staged) AND (t.data IS NOT s.data OR t.compressed IS NOT s.compressed)
            """
    }

    /// The bytes the switch would keep.
    static func changedBytes(_ kind: SwitchedKind) -> String {
        "SELECT COALESCE(SUM(LENGTH(t.data)), 0) FROM \(changed(kind))"
    }

    /// Records each changed row's next version (`?3` now), with its bytes now when `keep`.
    static func record(_ kind: SwitchedKind, keep: Bool) -> String {
        """
        INSERT INTO packfs_switched_rows (kind, row_id, version, data, compressed, kept, switched)
        SELECT \(kind.rawValue), t.id, 1, \(keep ? "t.data, t.compressed, 1" : "NULL, 0, 0"), ?3 FROM \(changed(kind))
        ON CONFLICT (kind, row_id) DO UPDATE SET version = version + 1, data = excluded.data,
          compressed = excluded.compressed, kept = excluded.kept, switched = excluded.switched
        """
    }

    static let version = StatementKey("SELECT version, kept, data, compressed FROM packfs_switched_rows WHERE kind = ? AND row_id = ?")
    static let versionOnly = "SELECT version FROM packfs_switched_rows WHERE kind = ? AND row_id = ?"
    static let release = "UPDATE packfs_switched_rows SET data = NULL, kept = 0 WHERE kept = 1 AND switched <= ?"
}

/// Which table a switched row is in.
public enum SwitchedKind: Int64, Sendable {
    case tile = 0, resource = 1
}

/// A row a switch changed during this mount: its version, and the previous version's bytes while kept (nil once
/// released; `previous?.bytes` nil: it had none).
public struct SwitchedRow: Sendable {
    public var version: Int64
    public var previous: StoredData?
}

/// Whether `packfs_switched_rows` may hold a row, readable without a lock: if not, lookups read no version.
final class SwitchedRowsFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    /// Set once this mount made the table afresh: a table a file brings (a mount that could not empty it, another
    /// program) is never recorded into or read.
    private let began = Atomic<Bool>(false)
    var value: Bool { raised.load(ordering: .acquiring) }
    var isRecording: Bool { began.load(ordering: .acquiring) }
    func store(_ value: Bool) { raised.store(value, ordering: .releasing) }
    func recording(_ value: Bool) {
        began.store(value, ordering: .releasing)
        if !value { store(false) }
    }
}

extension OfflineDatabase {
    /// A mount starts with no switched rows (its inode numbers are new), so the table is made empty.
    public func beginSwitchedRows() throws {
        try write { batch in
            try batch.db.execute(sql: "DROP TABLE IF EXISTS \(SwitchedRows.table)")
            try batch.db.execute(sql: SwitchedRows.create)
        }
        switchedRowsFlag.store(false)
        switchedRowsFlag.recording(true)
    }

    /// A mount that ends leaves no kept bytes behind (a killed one's go at the next mount).
    public func endSwitchedRows() throws {
        switchedRowsFlag.recording(false)
        try write { batch in try batch.db.execute(sql: "DROP TABLE IF EXISTS \(SwitchedRows.table)") }
    }

    /// `SwitchedRows.retention` in seconds.
    public static var switchedRowRetention: Int64 { SwitchedRows.retention }

    /// Whether any row was switched during this mount (else every row is at version 0).
    public var hasSwitchedRows: Bool { switchedRowsFlag.value }

    /// The row's version and kept bytes, or nil when no switch changed it during this mount.
    public func switchedRow(_ kind: SwitchedKind, _ id: Int64) throws -> SwitchedRow? {
        guard hasSwitchedRows else { return nil }
        return try first(SwitchedRows.version, [kind.rawValue, id]) { row in
            SwitchedRow(version: row.int64(0), previous: row.bool(1) ? StoredData(bytes: row.blob(2), compressed: row.bool(3)) : nil)
        }
    }

    /// Stops serving each switch's old bytes under their old inode once `retention` has passed (the kernel was told).
    public func releaseSwitchedRows(now: Int64? = nil) throws {
        guard hasSwitchedRows else { return }
        try write { batch in
            guard try batch.db.tableExists(SwitchedRows.table) else { return }
            try batch.db.execute(sql: SwitchedRows.release, arguments: [(now ?? unixNow()) - SwitchedRows.retention])
        }
    }
}

extension StoreBatch {
    /// Records the rows of `kind` the switch of `region`'s refresh of `since` replaces, before it does, while a mount
    /// keeps the table, and their new versions in `switched`.
    func recordSwitchedRows(_ kind: SwitchedKind, _ region: RegionID, _ since: Int64, _ switched: inout SwitchedContent,
                            keepingAtMost limit: Int64 = SwitchedRows.keptBytesLimit) throws {
        guard let flag = switchedRows, flag.isRecording, try db.tableExists(SwitchedRows.table) else { return }
        flag.store(true)
        let bytes = try Int64.fetchOne(db, sql: SwitchedRows.changedBytes(kind), arguments: [region.rawValue, since]) ?? 0
        let sql = SwitchedRows.record(kind, keep: bytes <= limit)
        try db.execute(sql: sql, arguments: [region.rawValue, since, now])
        switch kind {
        case .tile:
            for id in Set(switched.changedTiles.map(\.id)) { switched.tileVersions[id] = try versionOf(kind, id.rawValue) }
        case .resource:
            for id in Set(switched.changedResources.map(\.id)) { switched.resourceVersions[id] = try versionOf(kind, id.rawValue) }
        }
    }

    private func versionOf(_ kind: SwitchedKind, _ id: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: SwitchedRows.versionOnly), arguments: [kind.rawValue, id]) ?? 0
    }
}
