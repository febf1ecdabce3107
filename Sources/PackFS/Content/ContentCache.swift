import Basics
import FoundationEssentials
import PackStore

/// Decoded sizes and small contents by inode, bounded, shared by every FUSE thread, with each pack's `PackView` under
/// the same lock: a cold tile lookup takes this lock and the reader pool's only. `st_size` must be exact (a decoded
/// tile) and the read follows the lookup within microseconds: contents are kept briefly, sizes longer. First in, first
/// out: tiles are read in bursts. Larger caches were no faster (docs/benchmarks.md, "Designs measured and set aside").
/// The contents are a short list searched from its newest end, not a dictionary: a read asks for what a lookup has
/// just stored, and hashing an inode costs more than comparing a few dozen.
final class ContentCache: Sendable {
    let maxContentBytes = 1 << 20
    let maxFileBytes = 1 << 20
    /// Contents kept at most, whatever their bytes (a list of empty tiles stays short to search).
    let maxContents = 64
    let maxSizes = 200_000
    let state = LockedState(State())

    struct State {
        /// Oldest first.
        var contents: [(inode: Inode, data: Data)] = []
        var contentBytes = 0
        var sizes: [Inode: UInt64] = [:]
        var sizeOrder: [Inode] = []
        var views: [RegionID: PackView] = [:]
        /// The view kept last (also in `views`).
        var lastView: PackView?

        func content(_ inode: Inode) -> Data? {
            for index in contents.indices.reversed() where contents[index].inode == inode { return contents[index].data }
            return nil
        }
    }

    func content(_ inode: Inode) -> Data? { state.withLock { $0.content(inode) } }

    func size(_ inode: Inode) -> UInt64? {
        state.withLock { $0.sizes[inode] ?? $0.content(inode).map { UInt64($0.count) } }
    }

    func store(_ data: Data, for inode: Inode) {
        state.withLock { state in
            remember(size: UInt64(data.count), for: inode, in: &state)
            guard data.count <= maxFileBytes, state.content(inode) == nil else { return }
            state.contents.append((inode, data))
            state.contentBytes += data.count
            while state.contentBytes > maxContentBytes || state.contents.count > maxContents, !state.contents.isEmpty {
                state.contentBytes -= state.contents.removeFirst().data.count
            }
        }
    }

    /// Remembers the size of `inode` alone (a listing's: its content is not about to be read).
    func store(size: UInt64, for inode: Inode) { state.withLock { remember(size: size, for: inode, in: &$0) } }

    /// Forgets one pack's inodes and view, found by each inode's region bits.
    func removeAll(of region: RegionID) {
        state.withLock { state in
            let stays = { (inode: Inode) in InodeCodec.region(of: inode) != region }
            state.contents.removeAll { !stays($0.inode) }
            state.contentBytes = state.contents.reduce(0) { $0 + $1.data.count }
            state.sizes = state.sizes.filter { stays($0.key) }
            state.sizeOrder.removeAll { !stays($0) }
            state.views[region] = nil
            if state.lastView?.pack.id == region { state.lastView = nil }
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
