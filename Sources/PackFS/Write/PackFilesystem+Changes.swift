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

extension PackFilesystem {
    /// A redefinition dropped these tiles and resources from the pack. The kernel keeps tile
    /// names an hour: each is forgotten by name (under the primary directory and under
    /// `sources/<id>/`), so the next lookup finds nothing instead of serving the old tile; a
    /// resource's inode is forgotten (its content and attributes).
    public func membersLeft(_ region: RegionID, tiles: [TileKey], resources: [String]) {
        invalidateCaches()
        guard let kernelCache, let layout = try? layout(region) else { return }
        for key in tiles {
            for (ref, source) in Self.sources(showing: key, in: layout) {
                let y = source.row(key.y, z: key.z)
                guard let column = try? InodeCodec.encode(.column(region, ref, z: key.z, x: key.x)) else { continue }
                kernelCache.invalidate(parent: column, name: "\(y).\(source.fileExtension)")
            }
        }
        for url in resources {
            guard let id = try? database.resource(url: url)?.id, let inode = try? InodeCodec.encode(.resource(region, id))
            else { continue }
            kernelCache.invalidate(inode: inode)
        }
    }

    /// Where a tile key shows in the tree: every source keyed by its template and pixel ratio,
    /// as itself under `sources/` and, for the primary source, at the top of the pack too.
    static func sources(showing key: TileKey, in layout: PackLayout) -> [(SourceRef, PackLayout.Source)] {
        var found: [(SourceRef, PackLayout.Source)] = []
        for (index, source) in layout.sources.enumerated() {
            guard let columns = source.columns, columns.urlTemplate == key.urlTemplate,
                columns.pixelRatio == key.pixelRatio
            else { continue }
            found.append((SourceRef(index: index, primary: false), source))
            if index == layout.primary { found.append((SourceRef(index: index, primary: true), source)) }
        }
        return found
    }
}
