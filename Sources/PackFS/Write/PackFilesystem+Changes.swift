import Foundation
import PackStore

extension PackFilesystem {
    /// A refresh may have replaced the bytes of tiles and resources under their row ids, which
    /// the kernel caches for an hour: drop our caches and tell the kernel to forget every content
    /// inode of the pack (notifications go out asynchronously, never blocking a FUSE thread).
    public func packContentChanged(_ region: RegionID) {
        invalidateCaches()
        guard let kernelCache, let members = try? database.memberIDs(of: region) else { return }
        var nodes = members.tiles.map { Node.tile(region, $0) } + members.resources.map { Node.resource(region, $0) }
        nodes += [.pack(region, .style), .pack(region, .directory), .pack(region, .glyphs), .pack(region, .sprites)]
        for node in nodes {
            if let inode = try? InodeCodec.encode(node) { kernelCache.invalidate(inode: inode) }
        }
    }
}
