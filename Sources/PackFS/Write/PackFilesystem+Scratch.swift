import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// Scratch files in `packs/` (`ScratchFiles`), so `sed -i` and editors saving through a temporary file work. Renamed to
/// `<name>.region`, the text is judged as that file's: taken, the scratch file is gone; refused, EINVAL and it stays.
extension PackFilesystem {
    func createScratch(name: String, mode: UInt32, flags: Int32, _ request: Request) throws -> (Entry, OpenOptions) {
        guard controller != nil, ScratchFiles.admits(name) else { throw FilesystemError.notPermitted }
        if let existing = try existingChild(named: name, of: .packs, request) {
            guard case .scratch(let serial) = existing else { throw FilesystemError.exists }
            if flags & O_EXCL != 0 { throw FilesystemError.exists }
            let options = try openScratch(serial, flags: flags)
            return (try entry(for: existing, request), options)
        }
        let file = try scratches.create(name: name, mode: UInt16(truncatingIfNeeded: mode))
        packsChanged(name)
        return (try entry(for: .scratch(file.serial), request), Self.writeOptions(0))
    }

    func openScratch(_ serial: UInt32, flags: Int32) throws -> OpenOptions {
        if flags & O_TRUNC != 0 { try scratches.resize(serial, to: 0) }
        return Self.writeOptions(0)
    }

    /// size, mode and times as on a disk; an owner other than the mount's is refused.
    func setScratchAttributes(_ serial: UInt32, _ changes: AttributeChanges) throws {
        guard changes.uid.map({ $0 == uid }) ?? true, changes.gid.map({ $0 == gid }) ?? true else {
            throw FilesystemError.notPermitted
        }
        if let size = changes.size { try scratches.resize(serial, to: size) }
        if let mode = changes.mode { try scratches.setMode(serial, UInt16(truncatingIfNeeded: mode)) }
    }

    /// `mv` of a scratch file: to `<name>.region` its text is judged as that region file's;
    /// to another name that is no region file, error file or pack it is renamed.
    func renameScratch(_ serial: UInt32, to newName: String) throws {
        guard let file = scratches.file(serial) else { throw FilesystemError.stale }
        if let packName = PatchUploads.packName(of: newName) { return try renameScratchToPatch(file, packName: packName) }
        guard let packName = Self.packName(ofRegionFile: newName) else {
            guard ScratchFiles.admits(newName), (try? database.pack(named: newName)) == nil else { throw FilesystemError.notPermitted }
            try scratches.rename(serial, to: newName)
            return packsChanged(file.name, newName)
        }
        try validateName(packName)
        if drafts.draft(named: packName) != nil { throw FilesystemError.busy }
        try judgeText(RegionDrafts.Submission(name: packName, content: file.content))
        scratches.remove(serial)
        packsChanged(file.name)
    }
}
