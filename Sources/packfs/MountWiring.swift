import Downloader
import Foundation
import PackFS
import PackLifecycle
import PackStore

/// The filesystem's `PackController`, answered by the pack manager: a thin translation, since
/// PackFS knows nothing of the lifecycle.
final class PackControllerAdapter: PackController {
    private let manager: PackManager

    init(manager: PackManager) { self.manager = manager }

    func regionFileClosed(name: String, content: Data) -> RegionFileVerdict {
        do {
            try manager.submitRegionFile(name: name, content: content)
            return .accepted
        } catch {
            return .rejected(reason: String(describing: error))
        }
    }

    func removePack(_ region: RegionID) throws {
        try manager.remove(region)
    }

    func refreshPack(_ region: RegionID) {
        logFailure("refreshing pack \(region.rawValue)") { try manager.refresh(region) }
    }

    func setPackActive(_ region: RegionID, _ active: Bool) {
        logFailure("setting pack \(region.rawValue) \(active ? "active" : "inactive")") {
            try manager.setActive(region, active)
        }
    }

    /// These two cannot throw to the filesystem (yet): a failure is at least said in the log.
    /// A pack that cannot run was logged by the manager already.
    private func logFailure(_ what: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch LifecycleError.packFailed {
        } catch {
            FileHandle.standardError.write(Data("packfs: \(what) failed: \(error)\n".utf8))
        }
    }
}

/// The lifecycle's events, passed on to the filesystem's caches.
final class FilesystemEventSink: PackEventSink {
    private let filesystem: PackFilesystem

    init(filesystem: PackFilesystem) { self.filesystem = filesystem }

    func packRunEnded(_ region: RegionID, mode: PackDownload.Mode) {
        // A refresh may have replaced bytes the kernel caches; a download only added rows.
        switch mode {
        case .refresh: filesystem.packContentChanged(region)
        case .download: filesystem.invalidateCaches()
        }
    }

    func packMembersLeft(_ region: RegionID, tiles: [TileKey], resources: [String]) {
        filesystem.membersLeft(region, tiles: tiles, resources: resources)
    }
}
