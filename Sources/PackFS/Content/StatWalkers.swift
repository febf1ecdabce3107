import PackStore

/// The processes that look tiles up by name, which are the ones that want attributes with a
/// tile listing.
///
/// A READDIRPLUS entry with attributes makes the kernel build an inode and a dentry for the
/// file (several microseconds each on this machine class), worth it for a walker that will
/// stat every file (`du`, `ls -l`, rsync) and wasted on one that only reads names (`find`, `ls`).
/// The kernel's own guess (FUSE_CAP_READDIRPLUS_AUTO: attributes for a directory's first page,
/// then only after a lookup in it) gives up on the rest of a big directory as soon as a walker
/// reads it whole before stat-ing, as `du` and `ls` do: `du -s` of a 1,000,000-tile pack took
/// 52 s with it. Here a process that looked up a tile gets attributes in every later tile
/// listing: `du` pays lookups for its first column only, `find` never pays for attributes.
final class StatWalkers: Sendable {
    /// The processes (thread ids, as the kernel reports them) remembered at most.
    let capacity: Int
    private let recent = LockedState<[Int32]>([])

    init(capacity: Int = 64) { self.capacity = capacity }

    /// `pid` looked a tile up.
    func noteLookup(by pid: Int32) {
        recent.withLock { pids in
            guard !pids.contains(pid) else { return }
            if pids.count >= capacity { pids.removeFirst() }
            pids.append(pid)
        }
    }

    func wantsAttributes(_ pid: Int32) -> Bool { recent.withLock { $0.contains(pid) } }
}
