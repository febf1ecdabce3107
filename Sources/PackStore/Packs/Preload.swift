import Basics
import FoundationEssentials
import SQLiteDB

/// What `preload` stored and what making room for it evicted.
public struct PreloadReport: Equatable, Sendable {
    public var id: ResourceID
    /// Bytes as stored (compressed when that is smaller, docs/design.md §1).
    public var storedBytes: Int
    public var evicted: EvictionReport
}

extension OfflineDatabase {
    /// MGLOfflineStorage's `preloadData:forURL:modificationDate:expirationDate:eTag:mustRevalidate:`: `content` goes
    /// into the ambient cache under `url` as if a renderer had fetched it (a pack's row gets the new bytes and headers,
    /// as MapLibre's put does). One transaction trims the ambient cache (never the row just stored) and enforces
    /// `diskQuota`, or writes nothing. A resource larger than the ambient limit would be evicted at once: refused.
    public func preload(
        url: String, kind: ResourceKind, content: Data, headers: CacheHeaders, diskQuota: Int64?
    ) throws -> PreloadReport {
        let stored = StoredData.encoding(content)
        let report = try wrap {
            try write { batch -> PreloadReport in
                let limit = try AmbientCache.limit(batch.database)
                guard Int64(stored.storedSize) <= limit else {
                    throw StoreError.overAmbientLimit(url: url, bytes: stored.storedSize, limit: limit)
                }
                let id = try batch.putResource(url: url, kind: kind, data: stored, headers: headers)
                var evicted = try AmbientCache.trim(batch.database, to: limit)
                if let diskQuota { evicted.add(try batch.enforce(diskQuota: diskQuota)) }
                return PreloadReport(id: id, storedBytes: stored.storedSize, evicted: evicted)
            }
        }
        try incrementalVacuum()
        return report
    }
}
