import Basics
import PackStore
import Synchronization

/// The processes that look tiles up by name: they get attributes in every later tile listing. An entry with attributes
/// costs the kernel an inode and a dentry, worth it for a walker that stats every file (`du`, rsync), wasted on one
/// that reads names (`find`); the kernel's own guess fails walkers that read a directory whole first (`KernelCaching`).
/// `du` thus pays lookups for its first column only, and `find` never pays for attributes; those lookups read sizes,
/// not tiles (`listed`).
final class StatWalkers: Sendable {
    /// The processes (thread ids, as the kernel reports them) remembered at most.
    let capacity: Int
    private let recent = LockedState<[Int32]>([])
    /// The last few noted, read without the lock: every lookup of a walker but its first finds it here.
    private let seen: InlineArray<8, Atomic<Int32>> = InlineArray { _ in Atomic(-1) }
    private let next = Atomic<Int>(0)

    init(capacity: Int = 64) { self.capacity = capacity }

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

    /// The last few processes that listed a tile column, read without a lock by every tile lookup: such a
    /// process stats the names it read (`du`'s and `ls -l`'s first column, listed before it is known to
    /// walk), and its lookups need a tile's size, not its content (`PackFilesystem.recordedEntry`).
    private let listers: InlineArray<8, Atomic<Int32>> = InlineArray { _ in Atomic(-1) }
    private let nextLister = Atomic<Int>(0)

    func noteListing(by pid: Int32) {
        guard !listed(pid) else { return }
        listers[nextLister.wrappingAdd(1, ordering: .relaxed).oldValue & (listers.count - 1)].store(pid, ordering: .relaxed)
    }

    func listed(_ pid: Int32) -> Bool {
        for slot in listers.indices where listers[slot].load(ordering: .relaxed) == pid { return true }
        return false
    }
}
