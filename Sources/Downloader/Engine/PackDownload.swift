import Basics
import FoundationEssentials
import HTTP
import PackStore
import StyleModel

/// One run of a pack's download (or refresh), from planning to the last batch written.
///
/// Concepts. The style and TileJSONs come first (they say what else is needed); then each resource
/// and tile is adopted when stored anywhere in the database (a membership row, no request), or
/// fetched. A refresh revalidates stored rows with conditional requests instead.
///
/// Threading. `run()` blocks its caller; completions arrive on the client's loop thread and go to
/// the `BatchWriter`'s thread. `suspend()`, from any thread, makes `run()` return with the pack
/// `inactive` and what was written kept, cancelling what is in flight rather than waiting for it.
///
/// Errors. A 4xx other than 404, retries exhausted, a broken style or a limit reached end the pack
/// in `error` with a message naming the URL; nothing stored is lost.
public final class PackDownload: @unchecked Sendable {  // `lock` guards what completions and `stop` share; callbacks are set before `run()`; the rest is `run()`'s
    public enum Mode: Sendable { case download, refresh }

    let database: OfflineDatabase
    let region: RegionID
    let definition: RegionDefinition
    let options: DownloadOptions
    let mode: Mode
    /// Called after each committed batch (on the writer's thread) and at the end.
    public var onProgress: (@Sendable (PackProgress) -> Void)?
    /// Called when a changed definition dropped tiles and resources (by URL) from the pack.
    public var onMembersLeft: (@Sendable (_ tiles: [TileKey], _ resources: [String]) -> Void)?
    /// Called on the run's thread when a refresh's switch committed, before the pack is complete.
    public var onSwitched: (@Sendable (SwitchedContent) -> Void)?

    let lock = Lock()
    let idle = Condition()
    var outstanding = 0
    /// The count at or below which a waiting submitter wants to be woken (-1: nobody waits).
    var wakeAt = -1
    var lastProgress = Date.distantPast
    var stopReason: StopReason?
    var required = PackStatus(state: .active)
    /// Guarded by `lock`: `stop()` reads it from any thread while `run()` sets it.
    private var runClient: HTTPClient<FetchTag>?
    /// Where in the plan this run began fetching tiles: 0 or a resume point (guarded by `lock`).
    private var startedAt = 0
    /// The client's totals once `run()` shut it down (guarded by `lock`).
    private var endStatistics = HTTPStatistics()
    /// Writes what the run fetches, on its own thread; its callbacks are set by `start()`.
    let writer: BatchWriter
    /// How far into the plan the run's tiles are committed (its resume point).
    let ledger = ResumeLedger()
    var documents: [String: HTTPOutcome] = [:]
    /// The style and TileJSONs, fetched or adopted while planning (not again by `fetch`).
    var handledDocuments = Set<String>()
    /// Per URL template: did the database hold any of its tiles when this run first met it? (`fetch` only.)
    var templatesStored: [String: Bool] = [:]
    /// Per URL template: what its tiles must be (set by `fetch` before any tile is requested).
    var tileContents: [String: ContentKind] = [:]
    /// A refresh's `since` (PendingRefresh.swift): rows accessed at or after it are done; nil for a download.
    var refreshSince: Int64?
    /// A refresh goes on from a run that staged answers (Staging.swift): those count as answered.
    var stagedBefore = false
    /// A refresh of a plan the pack has not converged to: dropped members leave at the switch, not before.
    var convergenceOwed = false
    /// The `pmtiles://` archives' state (`PackDownload+Archive.swift`; the caller's thread only).
    var archives = ArchiveState()
    let decoders = BodyDecoders()
    /// How this run stores the tiles it fetches: the pack's choice as `start()` read it, before any request.
    var tileStorage = TileStorage.compressed
    /// Tiles newly stored (or about to be) by this run, for the database-wide limits.
    var newTiles = 0
    var newMapboxTiles = 0

    enum StopReason {
        case suspended
        /// What ended the run: its description is the pack's `error`.
        case failed(any Error)
    }

    public init(database: OfflineDatabase, region: RegionID, definition: RegionDefinition,
                options: DownloadOptions = DownloadOptions(), mode: Mode = .download) {
        self.database = database
        self.region = region
        self.definition = definition
        self.options = options
        self.mode = mode
        writer = BatchWriter(database: database, region: region)
    }

    /// Runs to completion, error or suspension and returns the pack's final status.
    @discardableResult
    public func run() -> PackStatus {
        var planned: (plan: DownloadPlan, style: Style)?
        do {
            try start()
            let (plan, style) = try makePlan()
            planned = (plan, style)
            noteArchives(of: plan)
            let fingerprint = plan.fingerprint(of: definition)
            let recorded = try database.resumePoint(of: region)
            // An earlier run converged the pack to this plan; a refresh converges at its switch.
            let converged = recorded?.plan == fingerprint
            if mode == .refresh {
                convergenceOwed = !converged
            } else if !isStopped, !converged {
                try converge(to: plan)
            }
            let label = convergenceOwed ? Self.owing(fingerprint) : fingerprint
            let start = resumePosition(recorded, plan: plan, fingerprint: label)
            lock.withLock { startedAt = start }
            ledger.begin(plan: label, since: refreshSince ?? 0, at: start)
            try fetch(plan, from: start)
            waitUntilIdle()
        } catch {
            stop(.failed(error))
        }
        // Cancels what is in flight and waits only for the completions, never for an answer.
        if let client = takeClient() {
            client.shutdown()
            lock.withLock { endStatistics = client.statistics }
        }
        return finish(planned)
    }

    /// Stops the run; what is stored stays and the next run resumes from it.
    public func suspend() {
        stop(.suspended)
    }

    func stop(_ reason: StopReason) {
        let client = lock.withLock {
            if stopReason == nil { stopReason = reason }
            return runClient
        }
        // A client set after this read is never used to submit: every submission checks
        // `isStopped` first, and `run()` shuts it down.
        client?.cancel { _ in true }
        wakeWaiters()
    }

    /// The run's HTTP client: nil before `start()` and after `run()` ended.
    var client: HTTPClient<FetchTag>? { lock.withLock { runClient } }

    private func takeClient() -> HTTPClient<FetchTag>? {
        lock.withLock {
            defer { runClient = nil }
            return runClient
        }
    }

    /// The plan position this run's tiles started at (a resume): those before it were not looked up again.
    public var resumedFrom: Int { lock.withLock { startedAt } }

    /// The HTTP totals of this run so far (attempts, retries, stalls...); final once `run()` returned.
    public var statistics: HTTPStatistics {
        lock.withLock { runClient?.statistics ?? endStatistics }
    }

    /// Throws when the run was stopped: its failure, or `.suspended`.
    func throwIfStopped() throws {
        switch lock.withLock({ stopReason }) {
        case nil: return
        case .suspended: throw DownloadError.suspended
        case .failed(let error): throw error
        }
    }

    var isStopped: Bool { lock.withLock { stopReason != nil } }

    private func start() throws {
        writer.status = { [unowned self] in self.currentStatus() }
        writer.onCommit = { [unowned self] chunks in
            self.ledger.committed(chunks)
            self.reportProgress()
        }
        writer.resumePoint = { [unowned self] in self.ledger.point }
        writer.diskQuota = options.diskQuota
        writer.onFailure = { [unowned self] error in self.stop(.failed(Self.writeFailure(error))) }
        if mode == .refresh {
            // Goes on with the refresh pending (cut by a kill or an unmount), else asks for one.
            let since = try database.pendingRefresh(of: region) ?? database.requestRefresh(of: region)
            refreshSince = since
            writer.notBefore = since
            writer.staging = since
            stagedBefore = try database.hasStaged(region, since: since)
        }
        tileStorage = try database.pack(id: region).tileStorage
        // Usually recorded already by `definePack`: a region file then writes its state once.
        let status = currentStatus()
        if try database.status(of: region) != status { try database.setStatus(status, of: region) }
        let policy = options.urlPolicy
        // The region file is the user's: its style's origin is trusted, what the style names not.
        let styleURL = try? policy.requestURL(for: definition.styleURL, kind: .style)
        let client = try HTTPClient<FetchTag>(
            configuration: options.http, allowHost: { host, port in policy.allows(host: host, port: port) },
            reach: policy.addressReach(styleURL: styleURL),
            completion: { [unowned self] completion in self.handle(completion) })
        lock.withLock { runClient = client }
    }

    /// The status to record now: active while running, then what the run ended as.
    func currentStatus() -> PackStatus {
        lock.lock()
        defer { lock.unlock() }
        var status = required
        switch stopReason {
        case nil: status.state = .active
        case .suspended: status.state = .inactive
        case .failed(let error):
            status.state = .error
            status.error = String(describing: error)
        }
        return status
    }

    private func finish(_ planned: (plan: DownloadPlan, style: Style)?) -> PackStatus {
        do {
            try writer.finish()
        } catch {
            stop(.failed(Self.writeFailure(error)))
        }
        if mode == .refresh, !isStopped, let planned { switchToStaged(planned.plan) }
        // Before the final state, so a reader who sees `complete` sees the estimate made from what was stored.
        if let planned { recordEstimateAgain(planned.plan, style: planned.style) }
        var status = currentStatus()
        if status.state == .active { status.state = .complete }
        if status.state == .complete, let reason = contentlessReason(status) { (status.state, status.error) = (.error, reason) }
        // A status that cannot be written (a full disk) leaves the pack `active`: the next mount resumes
        // it and ends it again. Nothing stored is lost, and the caller still gets the status.
        try? database.write { batch in
            try batch.setStatus(status, of: region)
            // Whole: its hash is owed, computed in the background (`complete` never waits for it).
            if status.state == .complete { try batch.requestHashes(of: region) }
            // Complete: nothing to resume; the plan stays, as the one the pack converged to.
            if status.state == .complete, var point = ledger.point {
                point.position = nil
                try batch.setResumePoint(point, of: region)
            }
            // Done: the next refresh asks for everything again.
            if status.state == .complete, let since = refreshSince { try batch.endRefresh(of: region, since: since) }
        }
        reportProgress(final: status)
        return status
    }

    /// Where fetching starts: the recorded position when it is about this plan and, for a
    /// refresh, this refresh (a download adopts whatever is stored, whoever stored it); else 0.
    func resumePosition(_ recorded: ResumePoint?, plan: DownloadPlan, fingerprint: String) -> Int {
        guard let recorded, recorded.plan == fingerprint, let position = recorded.position,
            mode == .download || recorded.since == refreshSince
        else { return 0 }
        return min(position, plan.tileCount)
    }

    /// Whether a stored row needs no request: a download adopts whatever is stored; a refresh
    /// only what it (or anything since it was asked for) already stored or revalidated.
    func isCurrent(accessed: Int64) -> Bool {
        guard let since = refreshSince else { return mode == .download }
        return accessed >= since
    }

    /// At most every 0.25 s, and once with the `final` status; the counts are the writer's last commit's.
    func reportProgress(final: PackStatus? = nil) {
        guard let onProgress else { return }
        let due = lock.withLock {
            let now = Date()
            guard final != nil || now.timeIntervalSince(lastProgress) >= 0.25 else { return false }
            lastProgress = now
            return true
        }
        guard due else { return }
        var progress = writer.progress
        if let final {
            progress = progress.map {
                PackProgress(status: final, counts: $0.counted ? $0.counts : nil, hashing: final.state == .complete)
            } ?? (try? database.progress(of: region))
        }
        if let progress { onProgress(progress) }
    }

    /// A quota speaks for itself; any other write failure says it was one.
    static func writeFailure(_ error: Error) -> any Error {
        error is DiskQuotaExceeded ? error : DownloadError.writeFailed(String(describing: error))
    }
}
