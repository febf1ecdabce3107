import Basics
import PackStore
import Synchronization

/// The processes that look tiles up by name, which are the ones that want attributes with a
/// tile listing.
///
/// A READDIRPLUS entry with attributes makes the kernel build an inode and a dentry for the
/// file (several microseconds each on this machine class), worth it for a walker that will
/// stat every file (`du`, `ls -l`, rsync) and wasted on one that only reads names (`find`, `ls`).
/// The kernel's own guess (FUSE_CAP_READDIRPLUS_AUTO: attributes for a directory's first page,
/// then only after a lookup in it) gives up on the rest of a big directory as soon as a walker
/// reads it whole before stat-ing, as `du` and `ls` do (docs/benchmarks.md, "Designs measured
/// and set aside"). Here a process that looked up a tile gets attributes in every later tile
/// listing: `du` pays lookups for its first column only, `find` never pays for attributes.
final class StatWalkers: Sendable {
    /// The processes (thread ids, as the kernel reports them) remembered at most.
    let capacity: Int
    private let recent = LockedState<[Int32]>([])
    /// The last few noted, read without the lock: a walker looks up tile after tile, and every
    /// lookup but its first finds itself here (the lock was one of six a cold lookup took).
    private let seen: InlineArray<8, Atomic<Int32>> = InlineArray { _ in Atomic(-1) }
    private let next = Atomic<Int>(0)

    init(capacity: Int = 64) { self.capacity = capacity }

    /// `pid` looked a tile up.
    func noteLookup(by pid: Int32) {
        for slot in seen.indices where seen[slot].load(ordering: .relaxed) == pid { return }
        let evicted = recent.withLock { pids -> Int32? in
            guard !pids.contains(pid) else { return nil }
            let evicted = pids.count >= capacity ? pids.removeFirst() : nil
            pids.append(pid)
            return evicted
        }
        // A pid that left the list leaves the fast path too, so it is noted again next time.
        if let evicted { for slot in seen.indices { _ = seen[slot].compareExchange(expected: evicted, desired: -1, ordering: .relaxed) } }
        seen[next.wrappingAdd(1, ordering: .relaxed).oldValue & (seen.count - 1)].store(pid, ordering: .relaxed)
    }

    func wantsAttributes(_ pid: Int32) -> Bool { recent.withLock { $0.contains(pid) } }
}
