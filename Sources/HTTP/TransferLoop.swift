import Basics
import CCurl
import FoundationEssentials

/// The multi loop: the only code that touches the multi and easy handles (besides curl_multi_wakeup), on one
/// thread. One turn: take the inbox, release due retries, fill free slots, perform, settle finished
/// transfers; then poll until a socket, libcurl's timer, a retry or a wake-up. Retries wait in a timer heap,
/// not a slot, so backing off holds up no one; 2xx bodies go to the `DecodePool`, freeing the slot at once.
final class TransferLoop<Tag: Sendable>: @unchecked Sendable {  // confined: made by the client, then used by the loop thread alone
    struct Limits {
        var retry: RetryPolicy
        var maxRedirects: Int
        /// Transfers in flight at most, quiet ones not counted.
        var concurrency: Int
        /// Monotonic nanoseconds of silence after which a transfer is quiet, and stalled.
        var quietAfter: UInt64
        var stallAfter: UInt64
        /// The stall timeout as configured, for messages.
        var stallSeconds: Double
    }

    private let multiHandle: MultiHandle
    let multi: UnsafeMutableRawPointer
    let inbox: Inbox<Tag>
    let statistics: StatisticsBox
    let completion: @Sendable (HTTPCompletion<Tag>) -> Void
    let allowHost: @Sendable (_ host: String, _ port: Int) -> Bool
    let reach: ReachJudge
    let limits: Limits
    let urls: URLInspector
    let classifier: AttemptClassifier
    let decoders: DecodePool<Tag>
    private let sharedHeaders: UnsafeMutablePointer<curl_slist>?
    private(set) var transfers: [EasyTransfer]
    private var idle: [Int]
    var active: [Job<Tag>?]
    /// Which slots hold a quiet transfer (set by the sweep), and how many.
    var isQuiet: [Bool]
    var quiet = 0
    /// Monotonic nanoseconds when a transfer may next turn quiet or stall (`.max`: none in flight).
    var nextSweep = UInt64.max
    var fresh = JobQueue<Tag>()
    /// Redirect hops and due retries: work already under way goes before fresh requests.
    var resumed = JobQueue<Tag>()
    var retries = RetryQueue<Job<Tag>>()
    var totals = HTTPStatistics()
    var random = SystemRandomNumberGenerator()

    init(multi: MultiHandle, configuration: HTTPClientConfiguration, inbox: Inbox<Tag>,
         statistics: StatisticsBox, allowHost: @escaping @Sendable (_ host: String, _ port: Int) -> Bool,
         reach: ReachJudge, completion: @escaping @Sendable (HTTPCompletion<Tag>) -> Void) throws {
        multiHandle = multi
        self.multi = multi.pointer
        self.inbox = inbox
        self.statistics = statistics
        self.allowHost = allowHost
        self.reach = reach
        self.completion = completion
        limits = Limits(
            retry: configuration.retry, maxRedirects: configuration.maxRedirects,
            concurrency: configuration.concurrency,
            quietAfter: MonotonicClock.nanoseconds(min(configuration.quietAfter, configuration.stallTimeout / 2)),
            stallAfter: MonotonicClock.nanoseconds(configuration.stallTimeout),
            stallSeconds: configuration.stallTimeout)
        urls = try URLInspector()
        classifier = AttemptClassifier(decoder: BodyDecoder(), bodyLimit: configuration.maxBodyBytes)
        sharedHeaders = RequestHeaders.shared()
        transfers = try (0..<configuration.slots).map { try EasyTransfer(slot: $0, configuration: configuration) }
        idle = Array(transfers.indices.reversed())
        active = Array(repeating: nil, count: transfers.count)
        isQuiet = Array(repeating: false, count: transfers.count)
        // Last: nothing may throw once the workers run (the pool throws only when none started).
        // One body per slot (or 32 MB): real vector tiles store as fast as with twice as many, which held
        // more of the daemon's memory (docs/benchmarks.md, "The download's decoders").
        decoders = try DecodePool(
            workers: configuration.decoders, limit: configuration.concurrency * 2, byteLimit: 32 << 20,
            bodyLimit: configuration.maxBodyBytes,
            wakeLoop: { multi.wakeUp() },
            finish: { job, outcome in
                var job = job
                job.attempts += 1
                statistics.countWorkerCompletion()
                completion(job.completion(outcome))
            })
    }

    deinit {
        // Easy handles go before the list they point at; the multi handle (still referenced by
        // `multiHandle`) goes after them.
        transfers.removeAll()
        curl_slist_free_all(sharedHeaders)
    }

    /// Runs until the inbox is closed, then cancels whatever is left. Every job ever received is
    /// completed exactly once.
    func run() {
        while true {
            let mail = inbox.take()
            fresh.append(contentsOf: mail.jobs)
            for back in decoders.takeReturned() { proceed(back.job, back.step) }
            for predicate in mail.cancellations { cancel(where: { predicate($0.request.tag) }) }
            if mail.stop { break }
            releaseDueRetries()
            startTransfers()
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            let settled = settleFinished() + sweepSilentTransfers()
            statistics.publish(totals)
            // Freed slots can take queued work at once, without a trip through poll.
            if settled > 0 { continue }
            curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
        }
        cancel(where: { _ in true })
        decoders.close()
        statistics.publish(totals)
    }

    private func releaseDueRetries() {
        guard !retries.isEmpty else { return }
        let now = MonotonicClock.now()
        while let job = retries.popDue(now: now) { resumed.append(job) }
    }

    /// Transfers in flight that count against `concurrency`.
    private var counted: Int { transfers.count - idle.count - quiet }

    private func startTransfers() {
        guard !idle.isEmpty, decoders.hasRoom() else { return }
        while let slot = idle.last, counted < limits.concurrency, let job = resumed.popFirst() ?? fresh.popFirst() {
            if job.isFirstAttempt, let refusal = job.refusal {
                complete(job, .failure(refusal))
                continue
            }
            let transfer = transfers[slot]
            guard transfer.prepare(
                url: job.url, validators: job.request.validators, range: job.request.range, shared: sharedHeaders,
                reachesAnyAddress: job.reachesAnyAddress),
                  curl_multi_add_handle(multi, transfer.handle) == CURLM_OK
            else {
                complete(job, .failure(.setup("could not start a transfer for \(job.url)")))
                continue
            }
            idle.removeLast()
            active[slot] = job
            totals.attempts += 1
            if counted + quiet > limits.concurrency { totals.besideQuiet += 1 }
            nextSweep = min(nextSweep, transfer.lastActivity + limits.quietAfter)
        }
    }

    /// Reads libcurl's "done" messages; returns how many transfers ended. Bodies go to the pool together,
    /// waking a worker once per turn.
    private func settleFinished() -> Int {
        var settled = 0
        var queued: Int32 = 0
        var bodies: [DecodePool<Tag>.Body] = []
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // The message dies with curl_multi_remove_handle: copy what we need first.
            let code = message.pointee.data.result
            guard let slot = slot(of: easy) else { continue }
            if let body = settle(slot: slot, code: code) { bodies.append(body) }
            settled += 1
        }
        if !bodies.isEmpty { decoders.submit(bodies) }
        return settled
    }

    private func slot(of easy: UnsafeMutableRawPointer) -> Int? {
        var owner: UnsafeMutableRawPointer?
        guard packfs_easy_getinfo_ptr(easy, CURLINFO_PRIVATE, &owner) == CURLE_OK, let owner else { return nil }
        return Unmanaged<EasyTransfer>.fromOpaque(owner).takeUnretainedValue().slot
    }

    /// Ends one transfer; a 2xx body is returned for the decoding pool, anything else proceeds.
    func settle(slot: Int, code: CURLcode) -> DecodePool<Tag>.Body? {
        let transfer = transfers[slot]
        curl_multi_remove_handle(multi, transfer.handle)
        let result = transfer.takeResult(code)
        guard var job = release(slot) else { return nil }
        job.newConnections += result.newConnections
        totals.connections += result.newConnections
        totals.wireBytes += result.body.count
        let now = Int64(Date().timeIntervalSince1970)
        guard !AttemptClassifier.needsDecoding(result) else {
            return DecodePool.Body(job: job, result: result, now: now)
        }
        proceed(job, classifier.classify(result, url: job.url, now: now))
        return nil
    }

    /// Stops the active transfers whose job matches, returning their jobs; slots become idle.
    func detachActive(where predicate: (Job<Tag>) -> Bool) -> [Job<Tag>] {
        var detached: [Job<Tag>] = []
        for slot in active.indices {
            guard let job = active[slot], predicate(job) else { continue }
            curl_multi_remove_handle(multi, transfers[slot].handle)
            release(slot)
            detached.append(job)
        }
        return detached
    }

    /// Frees a slot whose handle left the multi handle; returns the job it held.
    @discardableResult
    private func release(_ slot: Int) -> Job<Tag>? {
        let job = active[slot]
        active[slot] = nil
        idle.append(slot)
        setQuiet(slot, false)
        return job
    }

    func setQuiet(_ slot: Int, _ value: Bool) {
        guard isQuiet[slot] != value else { return }
        isQuiet[slot] = value
        quiet += value ? 1 : -1
    }

    /// Milliseconds until the next retry is due or a transfer may turn quiet or stall; at most 1 s.
    private func pollTimeout() -> Int32 {
        let idleWait: UInt64 = 1000
        let due = min(retries.earliestDue ?? .max, nextSweep)
        guard due != .max else { return Int32(idleWait) }
        let now = MonotonicClock.now()
        guard due > now else { return 0 }
        return Int32(min(idleWait, (due - now + 999_999) / 1_000_000))
    }
}
