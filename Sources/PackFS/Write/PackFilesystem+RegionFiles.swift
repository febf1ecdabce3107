import Basics
import FoundationEssentials
import PackStore
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Region files written with ordinary tools: writes land in an in-memory draft (`RegionDrafts`). The write that decides
/// the text (`RegionTextScan`) gets the pack manager's verdict as its result and in `packs/<name>.error`:
/// `cp bad.json packs/x.region` fails with EINVAL. Not at close(): the bridge turns FLUSH off (see its `flush`).
///
/// Undecided text is judged at the last release or, with stateless opens (no release), after `settleDelay` without a
/// write; its verdict then shows only in `<name>.error`. An empty file (`touch`) is rejected, unseen by the manager.
extension PackFilesystem {
    static let regionSuffix = ".region"
    static let emptyRegionFile = "empty region file"

    public func create(parent: Inode, name: String, mode: UInt32, flags: Int32, caller: Caller)
        throws -> (Entry, OpenOptions)
    {
        try serving { request in
            guard try node(parent) == .packs else { throw try refusal(under: parent) }
            if let packName = PatchUploads.packName(of: name) { return try createPatch(packName: packName, flags: flags, request) }
            guard let packName = Self.packName(ofRegionFile: name) else {
                return try createScratch(name: name, mode: mode, flags: flags, request)
            }
            // Checked now: by the time the text is judged, a draft would have shown in `packs/`.
            try validateName(packName)
            if let existing = try existingChild(named: name, of: .packs, request) {
                if flags & O_EXCL != 0 { throw FilesystemError.exists }
                let inode = try InodeCodec.encode(existing)
                let shown = try entry(for: existing, request)
                return (shown, try openForWriting(existing, inode: inode, flags: flags, request))
            }
            let handle = drafts.open(name: packName, current: Data(), truncate: false, dirty: true)
            packsChanged(name)
            let node = try child(named: name, of: .packs, request)
            if statelessOpens.withLock({ $0 }) {
                // No release comes for a created file either; without this the draft stays for good.
                drafts.settleWithoutRelease(name: packName, handle: handle)
                scheduleSettle(name: packName, inode: try InodeCodec.encode(node))
            }
            return (try entry(for: node, request), Self.writeOptions(handle))
        }
    }

    /// Opens a region file for writing; the draft starts empty (O_TRUNC) or from what it shows now.
    func openForWriting(_ node: Node, inode: Inode, flags: Int32, _ request: Request) throws -> OpenOptions {
        switch node {
        case .scratch(let serial): return try openScratch(serial, flags: flags)
        case .patch(let serial): return try openPatch(serial, flags: flags)
        default: break
        }
        guard let name = try regionFileName(node, request) else { throw try refusal(at: inode) }
        let truncate = flags & O_TRUNC != 0
        let current = truncate ? Data() : try shownText(of: node, request)
        return Self.writeOptions(drafts.open(name: name, current: current, truncate: truncate, dirty: false))
    }

    /// What a region file shows now: its pack's definition (a draft's file needs no start).
    private func shownText(of node: Node, _ request: Request) throws -> Data {
        guard case .pack(let region, .regionFile) = node else { return Data() }
        return try regionFile(try request.pack(region))
    }

    public func write(inode: Inode, handle: UInt64, offset: Int64, data: Data) throws -> Int {
        try serving { request in
            switch try node(inode) {
            case .scratch(let serial): return try scratches.write(serial, offset: offset, data: data)
            case .patch(let serial): return try writePatch(serial, offset: offset, data: data)
            default: break
            }
            let handle = handle == 0 ? try implicitHandle(inode, request) : handle
            guard let name = drafts.name(handle: handle) else { throw try refusal(at: inode) }
            let written: Int
            do {
                written = try drafts.write(handle: handle, offset: offset, data: data)
            } catch FilesystemError.tooLarge {
                throw refuseOversized(name: name)
            }
            try draftChanged(name: name, inode: inode)
            return written
        }
    }

    /// A region file's pack name, checked (docs/design.md §3): EINVAL, with the reason in
    /// `<name>.error` when that can be a file name, else in the daemon's log.
    func validateName(_ packName: String) throws {
        do {
            try PackName.validate(packName)
        } catch {
            let reason = String(describing: error)
            if packName.utf8.count + ".error".utf8.count <= 255 {
                recordRegionFileVerdict(name: packName, reason: reason)
                packsChanged(packName + ".error")
            } else {
                StandardError.write("packfs: refused a region file's name: \(reason)\n")
            }
            throw FilesystemError.invalid(reason)
        }
    }

    /// A region text past `RegionDrafts.maxBytes` goes unjudged (the pack stays as it was),
    /// `<name>.error` names the limit, and this and every later write through the file fail (EFBIG).
    func refuseOversized(name: String) -> FilesystemError {
        drafts.refuseOversized(name: name)
        recordRegionFileVerdict(name: name, reason: Self.oversizedText)
        packsChanged(name + Self.regionSuffix, name + ".error")
        return .tooLarge
    }

    static let oversizedText =
        "region text larger than \(RegionDrafts.maxBytes >> 20) MiB (\(RegionDrafts.maxBytes) bytes); nothing was changed"

    /// After a write or truncate: judges a decided text (EINVAL if refused), schedules an implicit settle.
    func draftChanged(name: String, inode: Inode) throws {
        if drafts.isImplicit(name: name) { scheduleSettle(name: name, inode: inode) }
        if drafts.isDue(name: name) { try judgeDraft(named: name) }
    }

    /// With stateless opens (FUSE_CAP_NO_OPEN_SUPPORT) a write arrives with handle 0: the file gets
    /// an implicit draft from what it shows now (an O_TRUNC open comes first as a truncate).
    func implicitHandle(_ inode: Inode, _ request: Request) throws -> UInt64 {
        let node = try node(inode)
        guard let name = try regionFileName(node, request) else { throw try refusal(at: inode) }
        return drafts.implicitHandle(name: name, current: try shownText(of: node, request))
    }

    /// Hands a draft that changed since its last verdict to the pack manager (`judgeText`).
    func judgeDraft(named name: String) throws {
        guard let submission = drafts.submission(name: name) else { return }
        do {
            try judgeText(submission)
        } catch {
            // A refused new file with no release to come goes at once: `<name>.error` says why,
            // and nothing stands in the way of `rm` while a settle waits.
            if (try? database.pack(named: name)) == nil, drafts.isImplicit(name: name) {
                drafts.discard(name: name)
                packsChanged(name + Self.regionSuffix)
            }
            throw error
        }
    }

    /// Hands a region file's text (a draft's, or a scratch file renamed to `<name>.region`) to the
    /// pack manager: the verdict goes to `<name>.error`, the pack's caches are forgotten, and a
    /// refusal is thrown as EINVAL.
    func judgeText(_ submission: RegionDrafts.Submission) throws {
        let reason = refusal(of: submission)
        recordRegionFileVerdict(name: submission.name, reason: reason)
        if let pack = try? database.pack(named: submission.name) { caches.forgetPack(pack.id) }
        packsChanged(submission.name + Self.regionSuffix, submission.name, submission.name + ".error")
        if let reason { throw FilesystemError.invalid(reason) }
    }

    /// Why the pack manager refused `submission`; nil when it took it.
    private func refusal(of submission: RegionDrafts.Submission) -> String? {
        guard !submission.content.isEmpty else { return Self.emptyRegionFile }
        guard let controller else { return "this mount has no pack manager" }
        do {
            try controller.regionFileSubmitted(name: submission.name, content: submission.content)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// At a draft's last handle, undecided text is judged (only `<name>.error` can tell) and the draft goes.
    public func release(inode: Inode, handle: UInt64) {
        if case .patch(let serial)? = InodeCodec.decode(inode) { return releasePatch(serial) }
        guard handle != 0, let name = drafts.name(handle: handle) else { return }
        if drafts.isLastHandle(handle) { try? judgeDraft(named: name) }
        guard drafts.release(handle: handle) != nil else { return }
        kernelCache?.invalidate(inode: inode)
        packsChanged(name + Self.regionSuffix)
    }

    /// An implicit draft is judged and dropped once `settleDelay` passes without a change to it.
    func scheduleSettle(name: String, inode: Inode) {
        let change = drafts.noteImplicitChange(name: name)
        DispatchQueue.global().asyncAfter(deadline: .now() + settleDelay) { [weak self] in
            guard let self, self.drafts.isLatestChange(change, name: name) else { return }
            try? self.judgeDraft(named: name)
            guard self.drafts.releaseImplicit(name: name) != nil else { return }
            self.kernelCache?.invalidate(inode: inode)
            self.packsChanged(name + Self.regionSuffix)
        }
    }

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
