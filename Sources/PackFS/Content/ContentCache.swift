import Basics
import FoundationEssentials
import PackStore

/// Decoded sizes and small decoded contents by inode, bounded, shared by every FUSE thread; and
/// each pack's `PackView`, under the same lock, so that a cold tile lookup takes this lock and
/// the reader pool's and no other.
///
/// `st_size` must be exact, and knowing a tile's size means decoding it; a lookup is usually
/// followed by an open and a read of the same file, so the content decoded for the size is kept
/// (up to `maxContentBytes` in all, files up to `maxFileBytes`) and the size alone for longer.
/// Eviction is first-in first-out: cheap, and tiles are read in bursts. The read comes
/// microseconds after its lookup, so 1 MB (about 120 tiles, against at most one request per FUSE
/// thread in flight) is enough: larger caches made the daemon larger and no faster
/// (docs/benchmarks.md, "Designs measured and set aside").
final class ContentCache: Sendable {
    let maxContentBytes = 1 << 20
    let maxFileBytes = 1 << 20
    let maxSizes = 200_000
    let state = LockedState(State())

    struct State {
        var contents: [Inode: Data] = [:]
        var contentOrder: [Inode] = []
        var contentBytes = 0
        var sizes: [Inode: UInt64] = [:]
        var sizeOrder: [Inode] = []
        var views: [RegionID: PackView] = [:]
    }

    func content(_ inode: Inode) -> Data? { state.withLock { $0.contents[inode] } }

    func size(_ inode: Inode) -> UInt64? {
        state.withLock { $0.sizes[inode] ?? $0.contents[inode].map { UInt64($0.count) } }
    }

    /// Remembers `data` as the content of `inode` (and its size).
    func store(_ data: Data, for inode: Inode) {
        state.withLock { state in
            remember(size: UInt64(data.count), for: inode, in: &state)
            guard data.count <= maxFileBytes, state.contents[inode] == nil else { return }
            state.contents[inode] = data
            state.contentOrder.append(inode)
            state.contentBytes += data.count
            while state.contentBytes > maxContentBytes, !state.contentOrder.isEmpty {
                let oldest = state.contentOrder.removeFirst()
                state.contentBytes -= state.contents.removeValue(forKey: oldest)?.count ?? 0
            }
        }
    }

    /// Remembers the size of `inode` alone (a listing's: its content is not about to be read).
    func store(size: UInt64, for inode: Inode) { state.withLock { remember(size: size, for: inode, in: &$0) } }

    /// Forgets what is kept of one pack's inodes and its view (content changed under them: a
    /// refresh, a redefinition; or the pack went). One pass over what is kept, by the region bits of each
    /// inode.
    func removeAll(of region: RegionID) {
        state.withLock { state in
            let stays = { (inode: Inode) in InodeCodec.region(of: inode) != region }
            state.contents = state.contents.filter { stays($0.key) }
            state.contentOrder.removeAll { !stays($0) }
            state.contentBytes = state.contents.values.reduce(0) { $0 + $1.count }
            state.sizes = state.sizes.filter { stays($0.key) }
            state.sizeOrder.removeAll { !stays($0) }
            state.views[region] = nil
        }
    }

    private func remember(size: UInt64, for inode: Inode, in state: inout State) {
        guard state.sizes.updateValue(size, forKey: inode) == nil else { return }
        state.sizeOrder.append(inode)
        // Drop the older half at once: one array shift per maxSizes / 2 insertions.
        guard state.sizeOrder.count > maxSizes else { return }
        let dropped = state.sizeOrder.count / 2
        for inode in state.sizeOrder.prefix(dropped) { state.sizes[inode] = nil }
        state.sizeOrder.removeFirst(dropped)
    }
}
