import SQLiteDB

/// How much of the database file is in use: its pages less the free list (which new rows reuse first and
/// `PRAGMA incremental_vacuum` returns to the file system).
public struct DiskUsage: Equatable, Sendable {
    public var fileBytes: Int64
    public var freeBytes: Int64
    public var usedBytes: Int64 { fileBytes - freeBytes }
}

/// A write that would take the database past `--disk-quota` (docs/design.md §4): the transaction
/// that met it rolls back, so the pack keeps every batch committed before it.
public struct DiskQuotaExceeded: Error, CustomStringConvertible, Equatable {
    public var quota: Int64
    /// Bytes in use the write would have left, after evicting the ambient cache.
    public var needed: Int64
    public var evicted: EvictionReport

    public var description: String {
        "disk quota reached: the database would use \(needed) bytes, over its quota of \(quota) (--disk-quota)"
            + (evicted.bytes > 0 ? "; \(evicted.bytes) bytes of ambient cache were evicted first" : "; no ambient cache left to evict")
            + ". What the pack holds is kept: resume with a larger quota"
    }
}

/// The quota is checked at the end of each write transaction on pages in use (exact, two pragmas), not predicted
/// from data sizes: rows cost pages, headers and index entries besides.
enum DiskQuota {
    static func usage(_ db: Database) throws -> DiskUsage {
        let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        return DiskUsage(fileBytes: pages * pageSize, freeBytes: free * pageSize)
    }

    /// Evicts ambient rows, least recently accessed first, until the pages in use fit `quota` (again while over: a page
    /// frees only when empty); throws `DiskQuotaExceeded` when the ambient cache runs out first.
    static func enforce(_ quota: Int64, _ db: Database) throws -> EvictionReport {
        var report = EvictionReport()
        while true {
            let used = try usage(db).usedBytes
            guard used > quota else { return report }
            let ambient = try AmbientCache.usage(db).bytes
            let step = ambient > 0 ? try AmbientCache.trim(db, to: max(0, ambient - (used - quota))) : EvictionReport()
            guard step.resources + step.tiles > 0 else {
                throw DiskQuotaExceeded(quota: quota, needed: used, evicted: report)
            }
            report.add(step)
        }
    }
}

extension StoreBatch {
    /// Ends a batch under `--disk-quota`: see `DiskQuota.enforce`.
    @discardableResult
    public func enforce(diskQuota quota: Int64) throws -> EvictionReport {
        try DiskQuota.enforce(quota, database)
    }
}

extension OfflineDatabase {
    public func diskUsage() throws -> DiskUsage { try read(DiskQuota.usage) }
}
