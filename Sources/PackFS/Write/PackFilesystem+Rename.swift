import FoundationEssentials
import PackStore

/// `mv packs/<a>.region packs/<b>.region` or `mv packs/<a> packs/<b>` renames the pack; no other
/// rename exists. An existing target is EEXIST: replacing a pack would delete it.
extension PackFilesystem {
    public func rename(parent: Inode, name: String, newParent: Inode, newName: String, caller: Caller) throws {
        try serving { request in
            let (from, to) = (try node(parent), try node(newParent))
            guard from == .packs, to == .packs else {
                throw from.region != nil || to.region != nil ? FilesystemError.readOnly : .notPermitted
            }
            switch try child(named: name, of: .packs, request) {
            case .pack(let region, .regionFile):
                guard let target = Self.packName(ofRegionFile: newName) else { throw FilesystemError.notPermitted }
                try renamePack(region, to: target, request)
            case .pack(let region, .directory): try renamePack(region, to: newName, request)
            case .draft: throw FilesystemError.busy
            case .scratch(let serial): try renameScratch(serial, to: newName)
            default: throw FilesystemError.notPermitted
            }
        }
    }

    private func renamePack(_ region: RegionID, to newName: String, _ request: Request) throws {
        let pack = try request.pack(region)
        guard pack.name != newName else { return }
        try validateName(newName)
        // A draft still being written would be judged for the old name; a judged one goes.
        guard drafts.dropJudged(name: pack.name) else { throw FilesystemError.busy }
        if drafts.draft(named: newName) != nil { throw FilesystemError.exists }
        do {
            try database.renamePack(region, to: newName)
        } catch StoreError.duplicatePackName(_), StoreError.normalisationTwin(_, _) {
            throw FilesystemError.exists
        }
        caches.forgetPack(region)
        request.forget()
        packsChanged(pack.name, pack.name + Self.regionSuffix, newName, newName + Self.regionSuffix)
        try forgetPackNameContent(region, request)
    }

    /// style.json and generated tiles.json spell the pack's name in their URLs, and the kernel
    /// may keep their pages (a complete pack's are immutable).
    private func forgetPackNameContent(_ region: RegionID, _ request: Request) throws {
        guard let kernelCache else { return }
        kernelCache.invalidate(inode: try InodeCodec.encode(.pack(region, .style)))
        kernelCache.invalidate(inode: try InodeCodec.encode(.pack(region, .webStyle)))
        for index in try request.layout(region).sources.indices {
            let ref = SourceRef(index: index, primary: false)
            kernelCache.invalidate(inode: try InodeCodec.encode(.source(region, ref, .tileJSON)))
        }
    }
}
