import Synchronization

/// Counts the changes that drop the cached pack list or a pack status (`PackListCache`, `PackStatusCache`),
/// readable without a lock: the mount keeps a pack's row, state and layout under the count it read first and
/// uses them while the count has not moved, so a tile lookup touches neither cache.
final class CacheGeneration: Sendable {
    private let count = Atomic<UInt64>(0)

    var value: UInt64 { count.load(ordering: .acquiring) }

    func bump() { count.add(1, ordering: .releasing) }
}

extension OfflineDatabase {
    /// The count of changes to packs and their states (`CacheGeneration`); nil read-only, as another process may write.
    public var cacheGeneration: UInt64? { mode == .readOnly ? nil : generation.value }

    /// Moves the count on for a change the store's caches do not see (the mount forgetting a pack whose style a
    /// refresh replaced), so nothing kept under the old count is used again.
    public func bumpCacheGeneration() { generation.bump() }

    /// How many writes the store has made (`DatabaseWriter.writeCount`): while it stays the same, nothing in
    /// the file changed. nil read-only, as another process may write.
    public var writeCount: UInt64? { mode == .readOnly ? nil : writer.writeCount }
}
