import Basics
import FoundationEssentials
import PackStore

/// Decoded sizes and small contents by inode, bounded, shared by every FUSE thread, with each pack's `PackView` under
/// the same lock: a cold tile lookup takes this lock and the reader pool's only. `st_size` must be exact (a decoded
/// tile) and the read follows the lookup within microseconds: a content waits here for the read that reaches its end,
/// which takes it (the kernel's page cache holds it from then on), and sizes stay longer (`SizeTable`). Taken at once,
/// the list stays a few entries long, and the next inflate writes into memory just freed, still in the CPU's caches,
/// where a list kept full would have it write over a megabyte read long ago (docs/benchmarks.md). First in, first out
/// beyond that: tiles are read in bursts. The contents are a short list searched from its newest end, not a
/// dictionary: a read asks for what a lookup has just stored, and hashing an inode costs more than comparing a few.
final class ContentCache: Sendable {
    let maxContentBytes = 1 << 20
    let maxFileBytes = 1 << 20
    /// Contents kept at most, whatever their bytes (a list of empty tiles stays short to search).
    let maxContents = 64
    /// Sizes kept at most: 2^17 slots (2 MiB once every page is written).
    static let sizeBits = 17
    let state = LockedState(State(sizes: SizeTable(bits: ContentCache.sizeBits)))

    struct State {
        /// Oldest first.
        var contents: [(inode: Inode, data: Data)] = []
        var contentBytes = 0
        let sizes: SizeTable
        var views: [RegionID: PackView] = [:]
        /// The view kept last (also in `views`).
        var lastView: PackView?

        /// Where `inode`'s content is in `contents`, searched from the newest end.
        func index(of inode: Inode) -> Int? { contents.indices.last { contents[$0].inode == inode } }

        func content(_ inode: Inode) -> Data? { index(of: inode).map { contents[$0].data } }
    }

    func content(_ inode: Inode) -> Data? { state.withLock { $0.content(inode) } }

    /// The content kept for `inode`, for a read of its bytes up to `end`: one that reaches the content's end takes it.
    func content(_ inode: Inode, readTo end: Int64) -> Data? {
        state.withLock { state in
            guard let index = state.index(of: inode) else { return nil }
            let data = state.contents[index].data
            if end >= data.count {
                state.contents.remove(at: index)
                state.contentBytes -= data.count
            }
            return data
        }
    }

    func size(_ inode: Inode) -> UInt64? {
        state.withLock { $0.sizes[inode] ?? $0.content(inode).map { UInt64($0.count) } }
    }

    func store(_ data: Data, for inode: Inode) {
        state.withLock { state in
            state.sizes[inode] = UInt64(data.count)
            guard data.count <= maxFileBytes, state.content(inode) == nil else { return }
            state.contents.append((inode, data))
            state.contentBytes += data.count
            while state.contentBytes > maxContentBytes || state.contents.count > maxContents, !state.contents.isEmpty {
                state.contentBytes -= state.contents.removeFirst().data.count
            }
        }
    }

    /// Remembers the size of `inode` alone (a listing's: its content is not about to be read).
    func store(size: UInt64, for inode: Inode) { state.withLock { $0.sizes[inode] = size } }

    /// Forgets one pack's inodes and view, found by each inode's region bits.
    func removeAll(of region: RegionID) {
        state.withLock { state in
            let stays = { (inode: Inode) in InodeCodec.region(of: inode) != region }
            state.contents.removeAll { !stays($0.inode) }
            state.contentBytes = state.contents.reduce(0) { $0 + $1.data.count }
            state.sizes.removeAll { !stays($0) }
            state.views[region] = nil
            if state.lastView?.pack.id == region { state.lastView = nil }
        }
    }
}
