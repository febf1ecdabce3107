import FoundationEssentials
import PackStore

/// setattr on region files: `touch` refreshes the pack, a truncate resizes one open for writing.
/// chmod and chown are refused unless they change nothing, so `mv` from another file system (which
/// then sets the old mode and owner) does not fail on an ordinary file of the mounting user.
extension PackFilesystem {
    public func setattr(inode: Inode, changes: AttributeChanges, caller: Caller) throws -> TimedAttributes {
        try serving { request in
            let node = try node(inode)
            guard changes != AttributeChanges() else { return try timedAttributes(of: node, inode: inode, request) }
            if case .scratch(let serial) = node {
                try setScratchAttributes(serial, changes)
                return try timedAttributes(of: node, inode: inode, request)
            }
            if case .patch(let serial) = node {
                // A truncate (an O_TRUNC open without one); times and modes are the mount's.
                if let size = changes.size { try uploads.resize(serial, to: Int64(clamping: size)) }
                return try timedAttributes(of: node, inode: inode, request)
            }
            guard let name = try regionFileName(node, request) else { throw try refusal(at: inode) }
            guard keepsModeAndOwner(changes) else { throw FilesystemError.notPermitted }
            if let size = changes.size, size > RegionDrafts.maxBytes { throw refuseOversized(name: name) }
            if let size = changes.size, try !drafts.resize(name: name, to: size) {
                // Stateless opens: an O_TRUNC open of a region file arrives as this truncate.
                guard size == 0 else { throw FilesystemError.notPermitted }
                _ = try implicitHandle(inode, request)
                guard try drafts.resize(name: name, to: 0) else { throw FilesystemError.notPermitted }
            }
            if changes.size != nil { try draftChanged(name: name, inode: inode) }
            if changes.accessed != nil || changes.modified != nil, case .pack(let region, _) = node {
                // A region file being written for a new name has no pack to refresh yet.
                guard let controller else { throw FilesystemError.notPermitted }
                try controller.refreshPack(region)
            }
            // A truncate may have judged the file, and a redefinition changes what it shows.
            request.forget()
            return try timedAttributes(of: node, inode: inode, request)
        }
    }

    /// The pack name of a region file (a pack's, or one being written); nil for other nodes.
    func regionFileName(_ node: Node, _ request: Request) throws -> String? {
        switch node {
        case .pack(let region, .regionFile): return try request.pack(region).name
        case .draft(let serial):
            guard let draft = drafts.draft(serial) else { throw FilesystemError.stale }
            return draft.name
        default: return nil
        }
    }

    private func keepsModeAndOwner(_ changes: AttributeChanges) -> Bool {
        (changes.mode.map { [0o644, 0o600].contains($0 & 0o7777) } ?? true) && (changes.uid.map { $0 == uid } ?? true)
            && (changes.gid.map { $0 == gid } ?? true)
    }
}
