import Basics
import CCurl
import FoundationEssentials

/// A request on its way: the caller's request plus what the loop tracks across attempts.
struct Job<Tag: Sendable>: Sendable {
    var request: HTTPRequest<Tag>
    /// The URL of the next attempt (the request's, or a redirect target).
    var url: String
    /// Attempts that ended in something other than a redirect.
    var attempts = 0
    var redirects = 0
    var newConnections = 0
    /// Why the request's own URL may not be fetched, judged when it was submitted; nil: allowed.
    var refusal: HTTPError?
    /// Whether the next attempt's URL may connect to an address that is not public (`ReachJudge`).
    var reachesAnyAddress = false

    init(_ request: HTTPRequest<Tag>) {
        self.request = request
        url = request.url
    }

    var isFirstAttempt: Bool { attempts == 0 && redirects == 0 }

    func completion(_ outcome: HTTPOutcome) -> HTTPCompletion<Tag> {
        HTTPCompletion(request: request, outcome: outcome, finalURL: url, attempts: attempts,
                       newConnections: newConnections)
    }
}

/// A FIFO of jobs: an array read from a moving head, compacted once the popped half is the larger,
/// so neither a pop shifts the array nor popped jobs (their URLs) pile up in a queue never emptied.
struct JobQueue<Tag: Sendable> {
    private var items: [Job<Tag>] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    /// Jobs the array holds, popped ones not yet compacted away included.
    var held: Int { items.count }

    mutating func append(_ job: Job<Tag>) { items.append(job) }
    mutating func append(contentsOf jobs: [Job<Tag>]) { items.append(contentsOf: jobs) }

    mutating func popFirst() -> Job<Tag>? {
        guard head < items.count else { return nil }
        let job = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return job
    }

    /// Removes the jobs matching `predicate`, returning them.
    mutating func remove(where predicate: (Job<Tag>) -> Bool) -> [Job<Tag>] {
        let pending = items[head...]
        let removed = pending.filter(predicate)
        items = pending.filter { !predicate($0) }
        head = 0
        return removed
    }
}

/// What other threads hand to the loop, under one lock. The loop takes everything at once, so a
/// submitter never waits for more than an append.
final class Inbox<Tag: Sendable>: Sendable {
    struct Mail: Sendable {
        var jobs: [Job<Tag>] = []
        var cancellations: [@Sendable (Tag) -> Bool] = []
        var stop = false
    }

    private let mail = LockedState(Mail())

    /// False once the client is stopping: the request was not taken.
    func post(_ jobs: [Job<Tag>]) -> Bool {
        mail.withLock { mail in
            guard !mail.stop else { return false }
            mail.jobs.append(contentsOf: jobs)
            return true
        }
    }

    func post(cancellation: @escaping @Sendable (Tag) -> Bool) {
        mail.withLock { $0.cancellations.append(cancellation) }
    }

    func close() { mail.withLock { $0.stop = true } }

    func take() -> Mail {
        mail.withLock { mail in
            let taken = mail
            mail = Mail(stop: taken.stop)
            return taken
        }
    }
}

/// Totals written by the loop, plus the completions made by decoding workers; read by anyone.
final class StatisticsBox: Sendable {
    private struct State {
        var value = HTTPStatistics()
        var completedByWorkers = 0
    }

    private let state = LockedState(State())

    func publish(_ totals: HTTPStatistics) { state.withLock { $0.value = totals } }

    /// Counted before the completion runs, so a caller that saw it sees it counted.
    func countWorkerCompletion() { state.withLock { $0.completedByWorkers += 1 } }

    var current: HTTPStatistics {
        state.withLock { state in
            var totals = state.value
            totals.completed += state.completedByWorkers
            return totals
        }
    }
}

/// Scheme, host and port as libcurl itself parses them: the allow list must judge the host libcurl
/// would connect to, so no second URL parser (with its own corner cases) gets a say.
final class URLInspector {
    private let handle: OpaquePointer

    init() throws {
        guard let handle = curl_url() else { throw HTTPError.setup("curl_url failed") }
        self.handle = handle
    }

    deinit { curl_url_cleanup(handle) }

    /// Where `url` may be fetched: its endpoint, or why not, phrased for a first request or for
    /// a redirect from `origin`.
    func judge(_ url: String, redirectedFrom origin: String?, allowHost: (String, Int) -> Bool)
        -> Result<Endpoint, HTTPError>
    {
        guard curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK,
              let scheme = part(CURLUPART_SCHEME)
        else { return .failure(.malformedURL(url: url)) }
        guard scheme == "http" || scheme == "https" else {
            if let origin { return .failure(.redirectSchemeRefused(from: origin, to: url)) }
            return .failure(.unsupportedScheme(url: url))
        }
        // The port libcurl would connect to, the scheme's default when none is written.
        guard let host = part(CURLUPART_HOST), !host.isEmpty,
              let port = part(CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
        else { return .failure(.malformedURL(url: url)) }
        guard !allowHost(host, port) else { return .success(Endpoint(scheme: scheme, host: host, port: port)) }
        if let origin { return .failure(.redirectRefused(host: "\(host):\(port)", from: origin, to: url)) }
        return .failure(.hostNotAllowed(host: "\(host):\(port)", url: url))
    }

    /// The endpoints of `urls` that libcurl can parse (a rewrite's target may be a bare origin).
    func endpoints(of urls: [String]) -> Set<Endpoint> {
        Set(urls.compactMap { try? judge($0, redirectedFrom: nil, allowHost: { _, _ in true }).get() })
    }

    private func part(_ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value).lowercased()
    }
}
