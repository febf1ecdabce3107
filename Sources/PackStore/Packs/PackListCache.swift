import Basics
import FoundationEssentials

/// The pack list, parsed once per change instead of once per call: a mount asks for it on every
/// lookup under `packs/` and for every pack directory, and each call would otherwise parse every
/// definition (JSON) again.
///
/// Valid only while this process is the file's only writer (a lock-holding mode): every change
/// to the `regions` table goes through `OfflineDatabase`, which calls `invalidate()` after it.
/// A list computed while a change commits is not kept: `store` takes the generation read before
/// the query, and a change in between bumps it.
final class PackListCache: Sendable {
    private struct State {
        var generation = 0
        var cached: [Pack]?
    }

    private let state = LockedState(State())
    /// Bumped with every invalidation, for readers outside the lock.
    private let generation: CacheGeneration

    init(generation: CacheGeneration) { self.generation = generation }

    /// The cached list, or `load()`'s result (kept if no change happened meanwhile).
    func packs(_ load: () throws -> [Pack]) throws -> [Pack] {
        let (seen, hit) = state.withLock { ($0.generation, $0.cached) }
        if let hit { return hit }
        let packs = try load()
        state.withLock { if $0.generation == seen { $0.cached = packs } }
        return packs
    }

    func invalidate() {
        state.withLock {
            $0.generation += 1
            $0.cached = nil
        }
        generation.bump()
    }
}
