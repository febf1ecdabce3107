import Synchronization

/// Counts the changes that drop the store's cached pack list or a cached pack status
/// (`PackListCache`, `PackStatusCache`), readable without a lock: the mount keeps what it read
/// of a pack (its row, state and layout) under the count it read first, and uses it while the
/// count has not moved, so a tile lookup touches neither cache (`OfflineDatabase.cacheGeneration`).
final class CacheGeneration: Sendable {
    private let count = Atomic<UInt64>(0)

    var value: UInt64 { count.load(ordering: .acquiring) }

    func bump() { count.add(1, ordering: .releasing) }
}

extension OfflineDatabase {
    /// The count of changes to packs and their states (`CacheGeneration`); nil where nothing
    /// read may be kept (read-only: another process may change the file).
    public var cacheGeneration: UInt64? { mode == .readOnly ? nil : generation.value }

    /// Moves the count on for a change the store's caches do not see (the mount forgetting a
    /// pack whose style a refresh replaced): what was kept under the old count is not used again.
    public func bumpCacheGeneration() { generation.bump() }
}
