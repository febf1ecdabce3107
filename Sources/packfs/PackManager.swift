import Downloader
import Foundation
import PackFS
import PackStore

/// The downloads of a mounted database: the `PackController` the filesystem calls when a region
/// file is closed, a pack removed, touched, suspended or resumed.
///
/// Threading. FUSE threads call in; each answer is quick. Every pack has a serial queue on which
/// its downloads run one after another, so a redefinition or refresh first suspends the running
/// download (a flag) and then runs after it, and removal waits only for that suspension (bounded
/// by cancelling in-flight requests), never for the network.
final class PackManager: PackController, @unchecked Sendable {
    private let database: OfflineDatabase
    private let options: DownloadOptions
    /// Told when a download ends, so cached sizes and contents are read again.
    weak var filesystem: PackFilesystem?
    private let lock = NSLock()
    private var running: [RegionID: PackDownload] = [:]
    private var queues: [RegionID: DispatchQueue] = [:]

    init(database: OfflineDatabase, options: DownloadOptions) {
        self.database = database
        self.options = options
    }

    func regionFileClosed(name: String, content: Data) -> RegionFileVerdict {
        do {
            try PackName.validate(name)
            let file = try RegionFile.parse(content)
            let pack = try packForRegion(file, name: name)
            start(pack.id, definition: file.definition, mode: .download)
            return .accepted
        } catch let error as StoreError {
            return .rejected(reason: error.description)
        } catch {
            return .rejected(reason: String(describing: error))
        }
    }

    /// Creates the pack, or stores its new definition and metadata (the download then converges).
    private func packForRegion(_ file: RegionFile, name: String) throws -> Pack {
        guard let pack = try database.packs().first(where: { $0.name == name }) else {
            return try database.createPack(name: name, definition: file.definition, metadata: file.metadata)
        }
        if pack.definition != file.definition { try database.setDefinition(pack.id, file.definition) }
        if pack.metadata != file.metadata { try database.setMetadata(pack.id, file.metadata) }
        return pack
    }

    func removePack(_ region: RegionID) throws {
        stopAndWait(region)
        try database.removePack(region)
        lock.withLock { _ = queues.removeValue(forKey: region) }
    }

    func refreshPack(_ region: RegionID) {
        guard let definition = try? database.pack(id: region).definition else { return }
        start(region, definition: definition, mode: .refresh)
    }

    func setPackActive(_ region: RegionID, _ active: Bool) {
        if active {
            guard let definition = try? database.pack(id: region).definition else { return }
            start(region, definition: definition, mode: .download)
        } else {
            lock.withLock { running[region] }?.suspend()
        }
    }

    /// At mount: every pack left `active` (a download cut by an unmount or a kill) resumes.
    func resumeActivePacks() {
        for pack in (try? database.packs()) ?? [] {
            guard let definition = pack.definition, (try? database.status(of: pack.id).state) == .active else { continue }
            start(pack.id, definition: definition, mode: .download)
        }
    }

    /// At unmount: suspends every download and records it `active` again, so the next mount
    /// resumes it.
    func suspendForUnmount() {
        let regions = lock.withLock { Array(running.keys) }
        for region in regions {
            stopAndWait(region)
            if var status = try? database.status(of: region), status.state == .inactive {
                status.state = .active
                try? database.setStatus(status, of: region)
            }
        }
    }

    private func start(_ region: RegionID, definition: RegionDefinition, mode: PackDownload.Mode) {
        let download = PackDownload(database: database, region: region, definition: definition, options: options, mode: mode)
        download.onMembersLeft = { [weak self] tiles, resources in
            self?.filesystem?.membersLeft(region, tiles: tiles, resources: resources)
        }
        let queue: DispatchQueue = lock.withLock {
            running[region]?.suspend()
            let queue = queues[region] ?? DispatchQueue(label: "packfs.pack.\(region.rawValue)")
            queues[region] = queue
            return queue
        }
        queue.async { [self] in
            lock.withLock { running[region] = download }
            download.run()
            lock.withLock { if running[region] === download { running[region] = nil } }
            // A refresh may have replaced bytes the kernel caches; a download only added rows.
            if mode == .refresh { filesystem?.packContentChanged(region) } else { filesystem?.invalidateCaches() }
        }
    }

    /// Suspends the pack's download and waits until its queue is idle.
    private func stopAndWait(_ region: RegionID) {
        let (download, queue) = lock.withLock { (running[region], queues[region]) }
        download?.suspend()
        queue?.sync {}
    }
}
