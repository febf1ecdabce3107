import Basics
import FoundationEssentials

/// Each pack's recorded status, read once per change instead of once per call: the mount asks
/// for it for every directory it shows (a complete pack's directories are cached by the kernel
/// for an hour, a pack still downloading's for a second), and each ask was a read transaction.
///
/// Valid only while this process is the file's only writer (a lock-holding mode), as the pack
/// list (`PackListCache`) is: every state is written by `StoreBatch.setStatus`, which drops the
/// pack's entry once its transaction commits; a removal (whose cascade deletes the row) drops
/// its pack's, a merge all of them. A status read while a change commits is not kept: the
/// generation read before the query must still be current when the result is stored, and every
/// change bumps it.
final class PackStatusCache: Sendable {
    private struct State {
        var generation = 0
        var statuses: [RegionID: PackStatus] = [:]
    }

    private let state = LockedState(State())
    /// Bumped with every invalidation, for readers outside the lock.
    private let generation: CacheGeneration

    init(generation: CacheGeneration = CacheGeneration()) { self.generation = generation }

    /// The cached status of `region`, or `load()`'s result (kept if no change happened meanwhile).
    func status(of region: RegionID, _ load: () throws -> PackStatus) throws -> PackStatus {
        let (seen, hit) = state.withLock { ($0.generation, $0.statuses[region]) }
        if let hit { return hit }
        let status = try load()
        state.withLock { if $0.generation == seen { $0.statuses[region] = status } }
        return status
    }

    func invalidate(_ region: RegionID) {
        state.withLock {
            $0.generation += 1
            $0.statuses[region] = nil
        }
        generation.bump()
    }

    func invalidateAll() {
        state.withLock {
            $0.generation += 1
            $0.statuses = [:]
        }
        generation.bump()
    }
}
