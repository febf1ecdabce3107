import FoundationEssentials
import PackStore
import StyleModel

/// A whole pack's hashes, read and recorded here, where the store is opened, not in StyleModel (it opens no database).
extension PackHash {
    /// Each tiled source's hash, in the style's order (a source named twice, once). A full read
    /// of the pack's tiles: call it off any FUSE thread.
    public static func compute(_ pack: Pack, in database: OfflineDatabase) throws -> [Source] {
        guard let style = try PackStyle.load(pack, from: database) else { return [] }
        var seen = Set<TileColumnSet>()
        var hashes: [Source] = []
        for source in style.sources {
            guard let columns = source.columns, seen.insert(columns).inserted, let hash = try PackHash.compute(source, in: database)
            else { continue }
            hashes.append(hash)
        }
        return hashes
    }

    /// Computes the pack's hashes and records them as the pack's (`packfs_pack_hashes`).
    @discardableResult
    public static func record(_ pack: Pack, in database: OfflineDatabase, at time: Date = Date()) throws -> [Source] {
        let hashes = try compute(pack, in: database)
        try database.recordHashes(hashes.map { $0.recorded(at: time) }, of: pack.id)
        return hashes
    }
}
