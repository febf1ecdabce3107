import Basics
import FoundationEssentials

/// What the store read of its packs, kept per change instead of read per call: the pack list
/// (`PackListCache`: the mount asks for it on every lookup under `packs/` and for every pack
/// directory, and each call would parse every definition again) and each pack's recorded status
/// (`PackStatusCache`: asked for every directory the mount shows, a read transaction each).
///
/// Valid only while this process is the file's only writer (a lock-holding mode): every change
/// goes through `OfflineDatabase`, which drops what it changes (the list after a write to
/// `regions`; a pack's status once the transaction of `StoreBatch.setStatus` commits, or with its
/// removal; everything after a merge). A value read while a change commits is not kept: the
/// generation read before the query must still be current when it is stored, and every change
/// bumps it.
final class PackCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var generation = 0
        var values: [Key: Value] = [:]
    }

    private let state = LockedState(State())
    /// Bumped with every invalidation, for readers outside the lock.
    private let generation: CacheGeneration

    init(generation: CacheGeneration = CacheGeneration()) { self.generation = generation }

    /// The kept value of `key`, or `load()`'s result (kept if no change happened meanwhile).
    func value(_ key: Key, _ load: () throws -> Value) throws -> Value {
        let (seen, hit) = state.withLock { ($0.generation, $0.values[key]) }
        if let hit { return hit }
        let value = try load()
        state.withLock { if $0.generation == seen { $0.values[key] = value } }
        return value
    }

    /// Drops the value of `key`, or every value.
    func invalidate(_ key: Key? = nil) {
        state.withLock {
            $0.generation += 1
            if let key { $0.values[key] = nil } else { $0.values = [:] }
        }
        generation.bump()
    }
}

/// The pack list's one key.
enum AllPacks: Hashable, Sendable { case all }

typealias PackListCache = PackCache<AllPacks, [Pack]>
typealias PackStatusCache = PackCache<RegionID, PackStatus>
