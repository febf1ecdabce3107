import Basics
import FoundationEssentials
import PackStore
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Patches on the mount: `cp diff.mbtiles packs/<name>.patch` applies one in martin's format, as does renaming a
/// scratch file to `<name>.patch` (rsync's way). The write that completes the file (`PatchUploads`) carries the
/// verdict: refused, EINVAL and `<name>.error`; applied, the kernel forgets the changed tiles before it returns.
extension PackFilesystem {
    /// `create` of `packs/<name>.patch`: ENOENT without the pack, EPERM on a read-only mount.
    func createPatch(packName: String, flags: Int32, _ request: Request) throws -> (Entry, OpenOptions) {
        guard controller != nil else { throw FilesystemError.notPermitted }
        let pack = try existingPack(named: packName)
        if let existing = uploads.file(named: packName) {
            if flags & O_EXCL != 0 { throw FilesystemError.exists }
            let options = try openPatch(existing.serial, flags: flags)
            return (try entry(for: .patch(existing.serial), request), options)
        }
        let spool = try SpoolFile(besideDatabase: database.path)
        let upload: PatchUpload
        do {
            upload = try uploads.start(name: pack.name, region: pack.id, spool: spool)
        } catch {
            spool.remove()
            throw error
        }
        packsChanged(pack.name + PatchUploads.suffix)
        settleIfStateless(upload.serial)
        return (try entry(for: .patch(upload.serial), request), Self.writeOptions(0))
    }

    func openPatch(_ serial: UInt32, flags: Int32) throws -> OpenOptions {
        try uploads.opened(serial)
        if flags & O_TRUNC != 0 { try uploads.resize(serial, to: 0) }
        return Self.writeOptions(0)
    }

    /// A write into an upload: the one that completes it applies it, one that is not SQLite's refuses it.
    func writePatch(_ serial: UInt32, offset: Int64, data: Data) throws -> Int {
        switch try uploads.write(serial, offset: offset, data: data) {
        case .partial:
            settleIfStateless(serial)
        case .whole:
            guard let upload = uploads.remove(serial) else { throw FilesystemError.stale }
            try applyPatch(upload.spool, name: upload.name, region: upload.region)
        case .notSQLite:
            guard let upload = uploads.remove(serial) else { throw FilesystemError.stale }
            upload.spool.remove()
            let reason = "\(upload.name)\(PatchUploads.suffix) is not a patch: its first bytes are not an SQLite database's header"
            recordRegionFileVerdict(name: upload.name, reason: reason)
            packsChanged(upload.name + PatchUploads.suffix, upload.name + ".error")
            throw FilesystemError.invalid(reason)
        }
        return data.count
    }

    /// The last handle went: a file not applied yet is applied now (only `<name>.error` can tell a
    /// refusal); an empty one (`touch`) goes quietly.
    func releasePatch(_ serial: UInt32) {
        guard let upload = uploads.released(serial), let taken = uploads.remove(upload.serial) else { return }
        guard taken.size > 0 else {
            taken.spool.remove()
            return packsChanged(taken.name + PatchUploads.suffix)
        }
        try? applyPatch(taken.spool, name: taken.name, region: taken.region)
    }

    /// With stateless opens no release comes: a file that rests `settleDelay` is settled as by one.
    private func settleIfStateless(_ serial: UInt32) {
        guard statelessOpens.withLock({ $0 }), let changes = uploads.file(serial)?.changes else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + settleDelay) { [weak self] in
            guard let self, self.uploads.file(serial)?.changes == changes else { return }
            self.releasePatch(serial)
        }
    }

    /// `rm packs/<name>.patch` while it is copied: nothing is applied.
    func discardPatch(_ serial: UInt32) {
        guard let upload = uploads.remove(serial) else { return }
        upload.spool.remove()
        packsChanged(upload.name + PatchUploads.suffix)
    }

    /// A scratch file renamed to `<name>.patch`: applied from a spool of its content.
    func renameScratchToPatch(_ file: ScratchFile, packName: String) throws {
        let pack = try existingPack(named: packName)
        let spool = try SpoolFile(besideDatabase: database.path)
        do {
            try spool.write(file.content, at: 0)
        } catch {
            spool.remove()
            throw error
        }
        scratches.remove(file.serial)
        packsChanged(file.name)
        try applyPatch(spool, name: pack.name, region: pack.id)
    }

    /// The pack a patch names; ENOENT when there is none.
    private func existingPack(named name: String) throws -> Pack {
        do {
            return try database.pack(named: name)
        } catch StoreError.packNotFound {
            throw FilesystemError.notFound
        }
    }

    /// Applies the patch in `spool` to the pack and removes the spool; the verdict goes to `<name>.error`.
    private func applyPatch(_ spool: SpoolFile, name: String, region: RegionID) throws {
        defer {
            spool.remove()
            packsChanged(name + PatchUploads.suffix, name + ".error")
        }
        guard let controller else { throw FilesystemError.notPermitted }
        let changes: TileChanges
        do {
            changes = try controller.patchSubmitted(region, path: spool.path, fileName: name + PatchUploads.suffix)
        } catch {
            let reason = String(describing: error)
            recordRegionFileVerdict(name: name, reason: reason)
            throw FilesystemError.invalid(reason)
        }
        recordRegionFileVerdict(name: name, reason: nil)
        do {
            try caches.tilesChanged(changes)
        } catch {
            StandardError.write("packfs: pack \(name): cached tiles may stay stale after its patch (\(error))\n")
        }
    }
}
