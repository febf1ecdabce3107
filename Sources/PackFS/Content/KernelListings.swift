import Basics
import PackStore

/// Which tile directories' listings the kernel may keep from one open to the next (FOPEN_CACHE_DIR):
/// a zoom's columns and a column's tiles come from the database alone, so a listing the kernel read
/// while the store's write count was N is still true at any later open that finds it N. A warm walk
/// of a big pack then sends the daemon an OPENDIR a directory instead of every page of it.
///
/// A listing read without attributes (by a process not yet known to stat what it lists, as `find`) is
/// read again for one that is (`StatWalkers`): from cached names alone, `du` would look up every tile.
final class KernelListings: Sendable {
    private struct Filled {
        var writes: UInt64
        var withAttributes: Bool
    }

    /// Directories remembered at most (a 1M-tile pack has about 14,000 columns); past it all are read afresh once.
    static let capacity = 1 << 16
    private let filled = LockedState<[Inode: Filled]>([:])

    /// The options for an open of directory `inode`: the kernel caches what it reads, and keeps what it
    /// has when the store has not written since it was read (nil `writes`: unknown, never kept).
    func open(_ inode: Inode, writes: UInt64?, withAttributes: Bool) -> OpenOptions {
        guard let writes else { return OpenOptions(keepCache: false) }
        let keep = filled.withLock { filled -> Bool in
            if let last = filled[inode], last.writes == writes, last.withAttributes || !withAttributes { return true }
            if filled.count >= Self.capacity { filled.removeAll() }
            filled[inode] = Filled(writes: writes, withAttributes: withAttributes)
            return false
        }
        return OpenOptions(keepCache: keep, cacheListing: true)
    }
}

extension PackFilesystem {
    /// Tile directories' listings are kept by the kernel while nothing is written (`KernelListings`);
    /// every other listing is read afresh at each open.
    public func opendir(inode: Inode, caller: Caller) throws -> OpenOptions {
        switch InodeCodec.decode(inode) {
        case .zoom?:
            return listings.open(inode, writes: database.writeCount, withAttributes: true)
        case .column?:
            return listings.open(inode, writes: database.writeCount, withAttributes: statWalkers.wantsAttributes(caller.pid))
        default:
            return OpenOptions(keepCache: false)
        }
    }
}
