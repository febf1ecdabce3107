import Foundation
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// Region files written with ordinary tools: create or open for writing gives a handle on an
/// in-memory draft (`RegionDrafts`), writes land in it, and close() hands the whole content to
/// the pack manager, whose verdict becomes close()'s result and `packs/<name>.error`.
///
/// An empty region file is rejected at close ("empty region file") without asking the manager:
/// `touch packs/new.region` (or `: > packs/x.region`) would otherwise be a definition of nothing.
/// It creates no pack and leaves an existing pack as it was.
extension PackFilesystem {
    static let regionSuffix = ".region"
    static let emptyRegionFile = "empty region file"

    public func create(parent: Inode, name: String, mode: UInt32, flags: Int32, caller: Caller)
        throws -> (Entry, OpenOptions)
    {
        try translatingErrors {
            guard try node(parent) == .packs else { throw try refusal(under: parent) }
            guard let packName = Self.packName(ofRegionFile: name) else { throw FilesystemError.notPermitted }
            do { try PackName.validate(packName) } catch { throw FilesystemError.invalid(String(describing: error)) }
            if let existing = try existingChild(named: name, of: .packs) {
                if flags & O_EXCL != 0 { throw FilesystemError.exists }
                let inode = try InodeCodec.encode(existing)
                return (try entry(for: existing), try openForWriting(existing, inode: inode, flags: flags))
            }
            let handle = drafts.open(name: packName, current: Data(), truncate: false, dirty: true)
            packsChanged(name)
            let node = try child(named: name, of: .packs)
            return (try entry(for: node), Self.writeOptions(handle))
        }
    }

    /// Opens a region file (of a pack, or one being written) for writing; O_TRUNC starts empty,
    /// otherwise the draft starts from what the file shows now.
    func openForWriting(_ node: Node, inode: Inode, flags: Int32) throws -> OpenOptions {
        let truncate = flags & O_TRUNC != 0
        let name: String
        var current = Data()
        switch node {
        case .pack(let region, .regionFile):
            let pack = try pack(region)
            name = pack.name
            if !truncate { current = try regionFile(pack) }
        case .draft(let serial):
            guard let draft = drafts.draft(serial) else { throw FilesystemError.stale }
            name = draft.name
        default:
            throw try refusal(at: inode)
        }
        let handle = drafts.open(name: name, current: current, truncate: truncate, dirty: false)
        return Self.writeOptions(handle)
    }

    public func write(inode: Inode, handle: UInt64, offset: Int64, data: Data) throws -> Int {
        let handle = handle == 0 ? try implicitHandle(inode) : handle
        guard drafts.isOpen(handle: handle) else { throw try refusal(at: inode) }
        return try drafts.write(handle: handle, offset: offset, data: data)
    }

    /// With stateless opens (FUSE_CAP_NO_OPEN_SUPPORT) a write arrives with handle 0: the region
    /// file gets an implicit draft, starting from what it shows now (an O_TRUNC open arrives
    /// first as a truncate, which empties it).
    func implicitHandle(_ inode: Inode) throws -> UInt64 {
        let node = try node(inode)
        guard let name = try regionFileName(node) else { throw try refusal(at: inode) }
        var current = Data()
        if case .pack(let region, .regionFile) = node { current = try regionFile(try pack(region)) }
        return drafts.implicitHandle(name: name, current: current)
    }

    /// close(): a draft changed since the last close goes to the pack manager now. Rejected:
    /// `<name>.error` says why and close() fails with EINVAL. Accepted: the error file goes.
    public func flush(inode: Inode, handle: UInt64) throws {
        guard handle != 0 else { return try flushImplicit(inode: inode) }
        guard let submission = drafts.submission(handle: handle) else { return }
        let verdict: RegionFileVerdict
        if submission.content.isEmpty {
            verdict = .rejected(reason: Self.emptyRegionFile)
        } else if let controller {
            verdict = controller.regionFileClosed(name: submission.name, content: submission.content)
        } else {
            verdict = .rejected(reason: "this mount has no pack manager")
        }
        recordRegionFileVerdict(name: submission.name, reason: verdict.reason)
        invalidateCaches()
        packsChanged(submission.name + Self.regionSuffix, submission.name, submission.name + ".error")
        if let reason = verdict.reason { throw FilesystemError.invalid(reason) }
    }

    /// A close with stateless opens: the implicit draft (if a write or truncate made one) is
    /// judged now and dropped, since no release will come.
    private func flushImplicit(inode: Inode) throws {
        guard let name = try? regionFileName(try node(inode)), let handle = drafts.existingImplicitHandle(name: name) else {
            return
        }
        defer {
            if drafts.releaseImplicit(name: name) != nil { packsChanged(name + Self.regionSuffix) }
            kernelCache?.invalidate(inode: inode)
        }
        try flush(inode: inode, handle: handle)
    }

    public func release(inode: Inode, handle: UInt64) {
        guard handle != 0, let name = drafts.release(handle: handle) else { return }
        // The file now shows the pack's definition (or nothing, if none was accepted).
        kernelCache?.invalidate(inode: inode)
        packsChanged(name + Self.regionSuffix)
    }

    /// `<name>` of `<name>.region`, or nil for any other file name.
    static func packName(ofRegionFile fileName: String) -> String? {
        guard fileName.hasSuffix(regionSuffix) else { return nil }
        return String(fileName.dropLast(regionSuffix.count))
    }

    /// Direct I/O: every write reaches the draft, and sizes follow the buffer.
    static func writeOptions(_ handle: UInt64) -> OpenOptions {
        OpenOptions(keepCache: false, directIO: true, handle: handle)
    }

    /// Tells the kernel that these names in `packs/` (and its listing) changed.
    func packsChanged(_ names: String...) {
        guard let kernelCache else { return }
        for name in names { kernelCache.invalidate(parent: InodeCodec.packs, name: name) }
        kernelCache.invalidate(inode: InodeCodec.packs)
    }
}

extension RegionFileVerdict {
    /// The rejection's reason; nil when accepted.
    var reason: String? {
        if case .rejected(let reason) = self { return reason }
        return nil
    }
}
