import Foundation

/// The pack list, parsed once per change instead of once per call: a mount asks for it on every
/// lookup under `packs/` and for every pack directory, and each call would otherwise parse every
/// definition (JSON) again.
///
/// Valid only while this process is the file's only writer (a lock-holding mode): every change
/// to the `regions` table goes through `OfflineDatabase`, which calls `invalidate()` after it.
/// A list computed while a change commits is not kept: `store` takes the generation read before
/// the query, and a change in between bumps it.
final class PackListCache: @unchecked Sendable {
    private let lock = NSLock()
    private var generation = 0
    private var cached: [Pack]?

    /// The cached list, or `load()`'s result (kept if no change happened meanwhile).
    func packs(_ load: () throws -> [Pack]) throws -> [Pack] {
        let (seen, hit) = lock.withLock { (generation, cached) }
        if let hit { return hit }
        let packs = try load()
        lock.withLock { if generation == seen { cached = packs } }
        return packs
    }

    func invalidate() {
        lock.withLock {
            generation += 1
            cached = nil
        }
    }
}
