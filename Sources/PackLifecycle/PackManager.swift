import Basics
import Downloader
import FoundationEssentials
import PackStore

/// The packs of an open database over time, as the mount drives them. The rules are in the target's
/// header (PackLifecycle.swift).
public final class PackManager: @unchecked Sendable {  // `lanes` and `stopped` are guarded by `lock`; the rest never changes
    private let database: OfflineDatabase
    private let runner: PackRunner
    private let hasher: PackHasher
    private let lock = Lock()
    private var lanes: [RegionID: PackLane] = [:]
    private var stopped = false

    public init(database: OfflineDatabase, options: DownloadOptions, events: (any PackEventSink)?) {
        self.database = database
        hasher = PackHasher(database: database, hashed: { region in events?.packHashed(region) })
        runner = PackRunner(database: database, options: options, events: events, hasher: hasher)
    }

    /// Creates or redefines pack `name` from a region file's text (validating the name and marking it
    /// `active` in one transaction) and queues a download. The error's description is `<name>.error`.
    public func submitRegionFile(name: String, content: Data) throws {
        let file = try RegionFile.parse(content)
        let pack = try database.definePack(
            name: name, definition: file.definition, metadata: file.metadata, tileStorage: file.tileStorage)
        try queueOwedRuns(pack.id)
    }

    /// Cancels queued work, waits for the running run to stop (never for the network), then removes.
    public func remove(_ region: RegionID) throws {
        let lane = self.lane(region)
        _ = lane.close()
        lane.waitUntilStopped()
        // The closed lane stays until the pack is gone, so a request meanwhile is refused.
        defer { lock.withLock { if lanes[region] === lane { lanes[region] = nil } } }
        try database.removePack(region)
    }

    /// Records the refresh (and the pack `active`) before queueing it, so the next mount runs it if this
    /// one cannot (PendingRefresh.swift).
    public func refresh(_ region: RegionID) throws {
        _ = try runner.definition(of: try database.pack(id: region))
        // After `stop` a refresh is refused, and so not recorded either.
        guard !lock.withLock({ stopped }) else { throw LifecycleError.stopped }
        try database.requestRefresh(of: region)
        try request(.refresh, region)
    }

    /// true: resume (queue a download); false: suspend the running run and drop queued work.
    public func setActive(_ region: RegionID, _ active: Bool) throws {
        let pack = try database.pack(id: region)
        if active {
            _ = try runner.definition(of: pack)
            return try queueDownload(region)
        }
        let underWay = lock.withLock { lanes[region] }?.suspend() ?? false
        // A run under way records `inactive` as it stops; a download that was only queued had marked the pack `active`.
        if !underWay, try database.status(of: region).state == .active {
            try runner.record(region) { $0.state = .inactive }
        }
    }

    /// Why a pack is not resumed after its runs were cut by the last two unclean stops.
    public static let givenUpReason = "the daemon stopped twice while downloading this pack; `touch` it to try again"

    /// At mount: every pack left `active` resumes, except one whose runs were cut by each of the last
    /// two unclean stops (InterruptedRuns.swift): it goes to `error`, so it cannot keep killing the mount.
    public func resumeActivePacks() {
        let packs: [Pack]
        do {
            packs = try database.packs()
        } catch {
            return runner.log("resuming packs failed: \(error)")
        }
        let givenUp: Set<RegionID>
        do {
            givenUp = Set(try database.settleInterruptedRuns())
        } catch {
            // The count cannot be written (a full disk): every pack resumes.
            runner.log("counting the runs the last stop cut failed: \(error)")
            givenUp = []
        }
        for pack in packs {
            if givenUp.contains(pack.id) {
                _ = runner.fail(pack, reason: Self.givenUpReason)
            } else {
                resumeIfActive(pack)
            }
        }
        // Hashes owed by packs that became whole before the last stop, and older rules' hashes.
        hasher.wake()
    }

    /// At unmount: cancels queued jobs, suspends every run and waits for them (not for the network).
    /// A pack running or queued for a download stays `active`, so the next mount resumes it.
    public func stop() {
        let lanes = lock.withLock {
            stopped = true
            return Array(self.lanes.values)
        }
        let closings = lanes.map { ($0.region, $0.close()) }
        for lane in lanes { lane.waitUntilStopped() }
        for (region, closing) in closings { recordForResumption(region, closing) }
        hasher.stop()
    }

    /// Marks the pack `active` before queueing, so a run that never starts resumes at the next mount.
    private func queueDownload(_ region: RegionID) throws {
        try runner.record(region) { status in
            status.state = .active
            status.error = nil
        }
        try queueOwedRuns(region)
    }

    /// A download, then the refresh still pending (cut by a download, suspension, unmount or kill).
    private func queueOwedRuns(_ region: RegionID) throws {
        try request(.download, region)
        guard try database.pendingRefresh(of: region) != nil else { return }
        do {
            try request(.refresh, region)
        } catch LifecycleError.stopped {
            // Still recorded: the next mount runs it.
        }
    }

    private func request(_ mode: PackDownload.Mode, _ region: RegionID) throws {
        guard !lane(region).request(mode) else { return }
        // Refused: the lane closed for a removal or the stop. After the stop a download stays
        // `active` for the next mount; a refresh recorded before stays recorded.
        guard lock.withLock({ stopped }) else { throw LifecycleError.packRemoved(name: try? database.pack(id: region).name) }
        if mode == .refresh { throw LifecycleError.stopped }
    }

    /// Resumes `pack` if left `active`, or `complete` with a refresh pending (a kill between a download
    /// and its queued refresh). One that cannot goes to `error` with the reason, and is logged.
    private func resumeIfActive(_ pack: Pack) {
        do {
            let state = try database.status(of: pack.id).state
            let refreshOwed = try database.pendingRefresh(of: pack.id) != nil
            guard state == .active || (state == .complete && refreshOwed) else { return }
            _ = try runner.definition(of: pack)
            try queueOwedRuns(pack.id)
        } catch LifecycleError.packFailed {
            // Recorded and logged by the runner.
        } catch {
            runner.log("pack \(pack.name): resuming failed: \(error)")
        }
    }

    /// The pack's lane, made when missing (closed after `stop`).
    private func lane(_ region: RegionID) -> PackLane {
        lock.withLock {
            if let lane = lanes[region] { return lane }
            let lane = PackLane(region: region, runner: runner, closed: stopped)
            lanes[region] = lane
            return lane
        }
    }

    /// After `stop`: a run still owed (queued, or cut by the stop) is recorded `active`; one that
    /// ended by itself keeps its state.
    private func recordForResumption(_ region: RegionID, _ closing: PackLane.Closing) {
        let owed = !closing.dropped.isEmpty
        guard owed || closing.cutRun != nil, (try? database.pack(id: region)) != nil else { return }
        do {
            try runner.record(region) { status in
                guard owed || status.state == .inactive else { return }
                status.state = .active
                status.error = nil
            }
        } catch {
            runner.log("pack \(runner.name(of: region)): recording it for resumption failed: \(error)")
        }
    }
}
