import Foundation

/// Decoded sizes and small decoded contents by inode, bounded, shared by every FUSE thread.
///
/// `st_size` must be exact, and knowing a tile's size means decoding it; a lookup is usually
/// followed by an open and a read of the same file, so the content decoded for the size is kept
/// (up to `maxContentBytes` in all, files up to `maxFileBytes`) and the size alone for longer.
/// Eviction is first-in first-out: cheap, and tiles are read in bursts. The read comes
/// microseconds after its lookup, so 4 MB (about 500 tiles, against at most one request per FUSE
/// thread in flight) is enough: with 32 MB a cold read of 20,000 tiles left the daemon 37 MB
/// larger and no faster.
final class ContentCache: @unchecked Sendable {
    let maxContentBytes: Int
    let maxFileBytes: Int
    let maxSizes: Int
    private let lock = NSLock()
    private var contents: [Inode: Data] = [:]
    private var contentOrder: [Inode] = []
    private var contentBytes = 0
    private var sizes: [Inode: UInt64] = [:]
    private var sizeOrder: [Inode] = []

    init(maxContentBytes: Int = 4 << 20, maxFileBytes: Int = 1 << 20, maxSizes: Int = 200_000) {
        self.maxContentBytes = maxContentBytes
        self.maxFileBytes = maxFileBytes
        self.maxSizes = maxSizes
    }

    func content(_ inode: Inode) -> Data? { lock.withLock { contents[inode] } }

    func size(_ inode: Inode) -> UInt64? { lock.withLock { sizes[inode] ?? contents[inode].map { UInt64($0.count) } } }

    /// Remembers `data` as the content of `inode` (and its size).
    func store(_ data: Data, for inode: Inode) {
        lock.withLock {
            remember(size: UInt64(data.count), for: inode)
            guard data.count <= maxFileBytes, contents[inode] == nil else { return }
            contents[inode] = data
            contentOrder.append(inode)
            contentBytes += data.count
            while contentBytes > maxContentBytes, !contentOrder.isEmpty {
                let oldest = contentOrder.removeFirst()
                contentBytes -= contents.removeValue(forKey: oldest)?.count ?? 0
            }
        }
    }

    /// Forgets everything (content changed under known inodes: a refresh, a redefinition).
    func removeAll() {
        lock.withLock {
            contents = [:]
            contentOrder = []
            contentBytes = 0
            sizes = [:]
            sizeOrder = []
        }
    }

    private func remember(size: UInt64, for inode: Inode) {
        guard sizes.updateValue(size, forKey: inode) == nil else { return }
        sizeOrder.append(inode)
        // Drop the older half at once: one array shift per maxSizes / 2 insertions.
        guard sizeOrder.count > maxSizes else { return }
        let dropped = sizeOrder.count / 2
        for inode in sizeOrder.prefix(dropped) { sizes[inode] = nil }
        sizeOrder.removeFirst(dropped)
    }
}
