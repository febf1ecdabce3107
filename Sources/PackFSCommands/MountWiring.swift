import Basics
import Downloader
import FUSEBridge
import FoundationEssentials
import Interchange
import PackFS
import PackLifecycle
import PackStore
import Dispatch

/// The parts of a mount, each built complete and none pointing back: notifier, caches, pack manager,
/// filesystem, FUSE mount. PackFS knows nothing of the lifecycle: two thin adapters translate.
struct MountParts {
    let manager: PackManager
    let filesystem: PackFilesystem
    let mount: FUSEMount

    /// `readOnly` (`-o ro`): the filesystem refuses every change and no download is run.
    init(database: OfflineDatabase, mountpoint: String, tileLimit: Int?, downloads: DownloadOptions,
         readOnly: Bool = false, webBase: String? = nil, webPage: WebPage? = nil, readAhead: ReadAheadMode = .off,
         fuse: FUSEMount.Options) {
        let notifier = KernelNotifier()
        let caches = TreeCaches(database: database, kernel: notifier)
        manager = PackManager(database: database, options: downloads, events: TreeEvents(caches: caches, database: database))
        filesystem = PackFilesystem(
            database: database, mountpoint: mountpoint, tileLimit: tileLimit, diskQuota: downloads.diskQuota, caches: caches,
            controller: readOnly ? nil : ManagerController(manager: manager, database: database), webBase: webBase,
            webPage: webPage, readAhead: readAhead)
        var fuse = fuse
        let told = fuse.transport
        fuse.transport = { [filesystem] transport in
            StandardError.write("packfs: serving over \(transport)\n")
            filesystem.transport.withLock { $0 = transport }
            told(transport)
        }
        mount = FUSEMount(filesystem: filesystem, mountpoint: mountpoint, options: fuse, notifier: notifier)
    }
}

/// The filesystem's `PackController`, answered by the pack manager. A lifecycle failure with an errno
/// of its own gets it; any other reaches the filesystem as it is (EIO, its cause logged).
final class ManagerController: PackController {
    private let manager: PackManager
    private let database: OfflineDatabase

    init(manager: PackManager, database: OfflineDatabase) {
        self.manager = manager
        self.database = database
    }

    /// Applied on the FUSE thread that completed the file; a busy pack refuses (`PatchError.packBusy`).
    func patchSubmitted(_ region: RegionID, path: String, fileName: String) throws -> TileChanges {
        let pack = try database.pack(id: region)
        return try PackPatch(database: database, pack: pack).apply(try PatchFile(path: path, name: fileName)).changes
    }

    func regionFileSubmitted(name: String, content: Data) throws {
        try manager.submitRegionFile(name: name, content: content)
    }

    func removePack(_ region: RegionID) throws {
        try translating { try manager.remove(region) }
    }

    func refreshPack(_ region: RegionID) throws {
        try translating { try manager.refresh(region) }
    }

    func setPackActive(_ region: RegionID, _ active: Bool) throws {
        try translating { try manager.setActive(region, active) }
    }

    /// A pack removed meanwhile is a stale node; a mount that is stopping is busy; an imported
    /// pack has nothing to refresh or resume from.
    private func translating(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch LifecycleError.packRemoved, StoreError.regionNotFound {
            throw FilesystemError.stale
        } catch LifecycleError.stopped {
            throw FilesystemError.busy
        } catch LifecycleError.imported {
            throw FilesystemError.notPermitted
        }
    }
}

/// The lifecycle's events, passed on to the tree's caches.
final class TreeEvents: PackEventSink {
    private let caches: TreeCaches
    private let database: OfflineDatabase

    init(caches: TreeCaches, database: OfflineDatabase) {
        self.caches = caches
        self.database = database
    }

    func packRunEnded(_ region: RegionID, mode: PackDownload.Mode) {
        // A download only added rows (its layout may have gained a TileJSON; other packs are
        // untouched); what a refresh replaced was forgotten at its switch.
        caches.forgetPack(region)
    }

    func packHashed(_ region: RegionID) {
        caches.forgetPack(region)
    }

    func packContentSwitched(_ switched: SwitchedContent) {
        caches.contentSwitched(switched)
        // The bytes the switch replaced stay readable under their old inodes a while (`RowTag`).
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Int(OfflineDatabase.switchedRowRetention) + 1)) {
            [database] in try? database.releaseSwitchedRows()
        }
    }

    /// A failed invalidation leaves the kernel serving its cache until the timeout: said on stderr.
    func packMembersLeft(_ region: RegionID, tiles: [TileKey], resources: [String]) {
        do {
            try caches.membersLeft(region, tiles: tiles, resources: resources)
        } catch {
            StandardError.write(
                "packfs: pack \(region.rawValue): cached content may stay stale (cannot list what changed: \(error))\n")
        }
    }
}
