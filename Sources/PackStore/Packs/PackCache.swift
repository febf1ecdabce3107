import Basics
import FoundationEssentials

/// What the store read of its packs, kept per change instead of read per call: the pack list (`PackListCache`,
/// asked on every lookup under `packs/`, each call parsing every definition) and each pack's status
/// (`PackStatusCache`, a read transaction for every directory the mount shows). Valid only while this process is
/// the file's only writer (a lock-holding mode): every change goes through `OfflineDatabase`, which drops what it
/// changes. A value read while a change commits is not kept: every change bumps the generation, which must be
/// unchanged since before the query.
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
