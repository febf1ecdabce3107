import Basics
import FoundationEssentials
import PackStore

/// Removal (docs/design.md §2): `rm packs/<name>.region` and `rmdir packs/<name>` remove the pack;
/// `rm packs/<name>.error` forgets a rejection. Inside a pack, `rm` drops that file's row, generated files go quietly,
/// and `rmdir` succeeds doing nothing, so `rm -r packs/<name>` empties the pack file by file and its last rmdir removes
/// it, with no error. Everything else is refused: EROFS inside a pack, EPERM at the top and in `packs/`.
extension PackFilesystem {
    public func unlink(parent: Inode, name: String, caller: Caller) throws {
        try serving { request in
            let target = try child(named: name, of: try node(parent), request)
            guard !Self.isDirectory(target) else { throw FilesystemError.isDirectory }
            switch target {
            case .rejection:
                rejections.clear(name: String(name.dropLast(".error".count)))
                packsChanged(name)
            case .pack(let region, .regionFile): try removePack(region, request)
            case .scratch(let serial):
                scratches.remove(serial)
                packsChanged(name)
            case .patch(let serial): discardPatch(serial)
            case .draft:
                // A region file still being written: its text goes unjudged, as an unlinked file's.
                drafts.discard(name: String(name.dropLast(Self.regionSuffix.count)))
                packsChanged(name)
            default:
                guard target.region != nil else { throw try refusal(under: parent) }
                try keepDirectory(try node(parent), request)
                try dropFromPack(target, by: caller, request)
                // No inval_entry: the kernel forgets an unlinked name itself, and a notification
                // would wait for the directory lock of rm's next unlink (see KernelNotifier).
            }
        }
    }

    public func rmdir(parent: Inode, name: String, caller: Caller) throws {
        try serving { request in
            let parentNode = try node(parent)
            if let region = parentNode.region {
                // Holds nothing of its own: rm -r dropped its files; the pack goes with the top rmdir.
                _ = try request.pack(region)
                if let target = try existingChild(named: name, of: parentNode, request) { vacancies.remove(target) }
                return
            }
            let target = try child(named: name, of: parentNode, request)
            guard Self.isDirectory(target) else { throw FilesystemError.notDirectory }
            guard case .pack(let region, .directory) = target else { throw try refusal(under: parent) }
            try removePack(region, request)
        }
    }

    public func mkdir(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry {
        throw try refusal(under: parent)
    }

    // Links, fifos and device nodes have no place in the tree: refused like mkdir.
    public func symlink(target: String, parent: Inode, name: String, caller: Caller) throws -> Entry {
        throw try refusal(under: parent)
    }

    public func link(inode: Inode, newParent: Inode, newName: String, caller: Caller) throws -> Entry {
        throw try refusal(under: newParent)
    }

    public func mknod(parent: Inode, name: String, mode: UInt32, caller: Caller) throws -> Entry {
        throw try refusal(under: parent)
    }

    /// Removes a pack through the pack manager, then forgets everything cached about it.
    func removePack(_ region: RegionID, _ request: Request) throws {
        guard let controller else { throw FilesystemError.notPermitted }
        let name = try request.pack(region).name
        try controller.removePack(region)
        removedPacks.note(region, name: name)
        drafts.dropJudged(name: name)
        vacancies.remove(region: region)
        caches.forgetPack(region)
        request.forget()
        packsChanged(name, name + Self.regionSuffix)
    }

    /// Drops one file's row from its pack, by hand: undone if the mount dies before the dropping processes end
    /// (`DropSettler`). The style and a stored TileJSON shape the tree, so the layout is forgotten after them.
    private func dropFromPack(_ node: Node, by caller: Caller, _ request: Request) throws {
        if let region = node.region {
            dropSettler.noteDrop(region, by: caller.pid, interval: settleDelay) { [weak self] in
                self?.settleDrops(of: region)
            }
        }
        switch node {
        case .tile(let region, let id, _): try database.dropByHand(tile: id, from: region)
        case .resource(let region, let id, _): try database.dropByHand(resource: id, from: region)
        case .pack(let region, .style):
            try unlinkResource(url: try request.pack(region).definition?.styleURL, from: region)
            caches.forgetPack(region)
        case .source(let region, let ref, .tileJSON), .source(let region, let ref, .data):
            // nil for a source with inline `tiles`: its tiles.json is generated.
            try unlinkResource(url: try request.source(region, ref).1.declared.url, from: region)
            caches.forgetPack(region)
        default: break  // progress.json: generated, nothing stored to drop
        }
    }

    private func settleDrops(of region: RegionID) {
        do {
            try database.settleDrops(of: region)
        } catch {
            // Unsettled drops are undone at the next mount: the files come back, nothing is lost.
            StandardError.write("packfs: settling files removed from a pack failed: \(error)\n")
        }
    }

    /// Keeps `directory` (and its `<z>/`) after its last file goes, until its own rmdir.
    private func keepDirectory(_ directory: Node, _ request: Request) throws {
        switch directory {
        case .column(let region, let ref, let z, let x): vacancies.vacate(region: region, source: ref.index, z: z, x: x)
        case .fontStack(let region, let id):
            guard let name = try fontStackName(id, in: region, request) else { return }
            vacancies.vacate(region: region, stack: id, name: name)
        default: break
        }
    }

    private func unlinkResource(url: String?, from region: RegionID) throws {
        guard let url, let id = try database.packResourceID(url: url, in: region) else { return }
        try database.dropByHand(resource: id, from: region)
    }

    func existingChild(named name: String, of parent: Node, _ request: Request) throws -> Node? {
        do {
            return try child(named: name, of: parent, request)
        } catch FilesystemError.notFound {
            return nil
        }
    }

    /// The error for changing a child of `parent`.
    func refusal(under parent: Inode) throws -> FilesystemError {
        let node = try node(parent)
        return node.region == nil ? .notPermitted : .readOnly
    }

    /// The error for changing `inode` itself.
    func refusal(at inode: Inode) throws -> FilesystemError {
        let node = try node(inode)
        switch node {
        case .pack(_, .regionFile), .pack(_, .directory): return .notPermitted
        default: return node.region == nil ? .notPermitted : .readOnly
        }
    }
}
