import Basics
import CCurl
import FoundationEssentials
import Dispatch

/// Settings of an `HTTPClient`.
public struct HTTPClientConfiguration: Sendable {
    /// Transfers in flight at most (`--concurrency`), not counting quiet ones (`quietAfter`).
    public var concurrency = 20
    public var userAgent = "PackFS/0.1 (offline map packs; libcurl)"
    public var retry = RetryPolicy()
    public var maxRedirects = 10
    /// Seconds to establish a connection.
    public var connectTimeout = 15.0
    /// Seconds a transfer may receive nothing, once its request went out, before it is abandoned
    /// and retried (`--stall-timeout`).
    public var stallTimeout = 5.0
    /// Seconds without receiving anything after which a transfer stops counting against
    /// `concurrency` (at most half of `stallTimeout`), so the loop starts another: transfers that
    /// went silent do not keep the rest of the work waiting. At most `concurrency` transfers more
    /// start that way (`slots`), so a dead server gets at most twice as many connections.
    public var quietAfter = 1.0
    /// Largest body accepted, on the wire and inflated.
    public var maxBodyBytes = Zlib.maxInflatedBytes
    /// Threads inflating 2xx bodies beside the loop thread. One keeps up with loopback nginx; two
    /// were slower on cores shared with the server and the writer (docs/benchmarks.md, "The
    /// download's decoders").
    public var decoders = 1
    /// A PEM file of certificate authorities to trust instead of the system's (a private CA, or a
    /// test server's self-signed certificate).
    public var caFile: String?
    /// libcurl's own trace on stderr.
    public var verbose = false

    public init() {}

    /// Easy handles, and connections per host, at most: `concurrency` plus as many for the
    /// transfers started while others were quiet.
    var slots: Int { 2 * concurrency }
}

/// An HTTP client on libcurl's multi interface.
///
/// Concepts. Callers `submit` requests (a URL, optional validators, an opaque tag) from any
/// thread and receive exactly one `HTTPCompletion` per request. A single loop thread owns the
/// multi handle and `slots` reusable easy handles; requests beyond `concurrency` in flight wait in
/// a queue, except that a transfer silent for `quietAfter` stops counting, and one silent for
/// `stallTimeout` is abandoned and retried.
/// Connections are kept alive and reused (HTTP/1.1), or multiplexed (HTTP/2 over TLS). A 2xx
/// body is decoded on one of `decoders` worker threads (`DecodePool`, `BodyDecoder`) while its
/// slot already carries the next transfer.
///
/// Threading. `completion` runs on the loop thread (failures, 3xx/4xx, 204/304, cancellations)
/// or on a decoding worker (decoded 2xx bodies), so calls CAN BE CONCURRENT: it must be
/// thread-safe, and completions of different requests arrive in no particular order. Keep it
/// cheap (hand the result to your own queue): while it runs its thread makes no progress. It may
/// call `submit` and `cancel`, and `shutdown` (which then does not wait). `shutdown` returns only
/// after every completion has returned; the one exception: a request submitted after `shutdown`
/// completes at once, with `.cancelled`, on the submitting thread.
///
/// Errors. Redirects are followed by the loop, and only to http/https URLs whose host and port
/// pass `allowHost` (the first URL must pass too); nothing is sent for a refused URL. Network failures,
/// corrupt bodies, stalls, 5xx and 429 are retried after a backoff (`RetryPolicy`); other outcomes
/// are final.
public final class HTTPClient<Tag: Sendable>: @unchecked Sendable {  // the URL inspector (libcurl's parser) is guarded by `inspecting`; the rest never changes
    private let multi: MultiHandle
    private let inbox = Inbox<Tag>()
    private let statisticsBox = StatisticsBox()
    private let completion: @Sendable (HTTPCompletion<Tag>) -> Void
    private let finished = DispatchGroup()
    private let thread: NativeThread
    private let decoders: DecodePool<Tag>
    /// Judges each request's URL on the submitting thread: a URL parse per request was 4% of
    /// the loop thread, which paces every transfer. Redirects are judged by the loop.
    private let inspector: URLInspector
    private let inspecting = Lock()
    private let allowHost: @Sendable (_ host: String, _ port: Int) -> Bool
    private let reach: ReachJudge

    /// `allowHost` says which hosts may be contacted at all; `reach`, which requests may connect
    /// to addresses that are not public (every request, by default).
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration(),
                allowHost: @escaping @Sendable (_ host: String, _ port: Int) -> Bool = { _, _ in true },
                reach: AddressReach = .anywhere,
                completion: @escaping @Sendable (HTTPCompletion<Tag>) -> Void) throws {
        guard configuration.concurrency > 0 else { throw HTTPError.setup("concurrency must be at least 1") }
        guard configuration.stallTimeout > 0, configuration.stallTimeout <= 86_400 else {
            throw HTTPError.setup("the stall timeout must be above 0 and at most a day")
        }
        multi = try MultiHandle(slots: configuration.slots)
        self.completion = completion
        self.allowHost = allowHost
        inspector = try URLInspector()
        self.reach = ReachJudge(reach, inspector: inspector)
        let loop = try TransferLoop(multi: multi, configuration: configuration, inbox: inbox,
                                    statistics: statisticsBox, allowHost: allowHost, reach: self.reach,
                                    completion: completion)
        decoders = loop.decoders
        let finished = self.finished
        finished.enter()
        do {
            thread = try NativeThread.start(name: "PackFS HTTP loop") {
                loop.run()
                finished.leave()
            }
        } catch {
            finished.leave()
            loop.decoders.close()
            throw HTTPError.setup("no thread for the HTTP loop: \(error)")
        }
    }

    deinit { shutdown() }

    public func submit(_ request: HTTPRequest<Tag>) {
        submit(contentsOf: [request])
    }

    /// Submits many requests with one wake-up of the loop.
    public func submit(contentsOf requests: [HTTPRequest<Tag>]) {
        guard !requests.isEmpty else { return }
        guard inbox.post(jobs(for: requests)) else {
            for request in requests {
                completion(HTTPCompletion(request: request, outcome: .failure(.cancelled(url: request.url)),
                                          finalURL: request.url, attempts: 0, newConnections: 0))
            }
            return
        }
        multi.wakeUp()
    }

    private func jobs(for requests: [HTTPRequest<Tag>]) -> [Job<Tag>] {
        inspecting.lock()
        defer { inspecting.unlock() }
        return requests.map { request in
            var job = Job(request)
            switch inspector.judge(request.url, redirectedFrom: nil, allowHost: allowHost) {
            case .success(let endpoint): job.reachesAnyAddress = reach.mayReachAnyAddress(endpoint)
            case .failure(let refusal): job.refusal = refusal
            }
            return job
        }
    }

    /// Ends the requests whose tag matches, queued, waiting to retry, in flight or being decoded,
    /// each with `.failure(.cancelled)`. Asynchronous: completions follow on the loop thread (a
    /// body whose decoding has already finished may still complete with its real outcome).
    public func cancel(where predicate: @escaping @Sendable (Tag) -> Bool) {
        inbox.post(cancellation: predicate)
        multi.wakeUp()
    }

    /// Cancels everything outstanding (each gets its `.cancelled` completion) and stops the loop
    /// thread and the decoders; waits for them (and for every completion) unless called from a
    /// completion, on one of those threads. Idempotent.
    public func shutdown() {
        inbox.close()
        multi.wakeUp()
        if !thread.isCurrent && !decoders.runsOnCurrentThread { finished.wait() }
    }

    /// Totals so far; updated by the loop after each turn.
    public var statistics: HTTPStatistics { statisticsBox.current }
}

/// The multi handle, shared by the client (which only wakes the loop) and the loop (which does
/// everything else). Whichever lets go last cleans it up, so a wake-up never meets a freed handle,
/// even when the client's last reference dies on the loop thread.
final class MultiHandle: @unchecked Sendable {  // a C handle: other threads only call curl_multi_wakeup, which libcurl makes thread-safe
    let pointer: UnsafeMutableRawPointer

    init(slots: Int) throws {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let pointer = curl_multi_init() else {
            curl_global_cleanup()
            throw HTTPError.setup("curl_multi_init failed")
        }
        self.pointer = pointer
        _ = packfs_multi_setopt_long(pointer, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // As many connections to a host as transfers: a transfer started beside a quiet one must
        // not queue inside libcurl for the quiet one's connection.
        _ = packfs_multi_setopt_long(pointer, CURLMOPT_MAX_HOST_CONNECTIONS, slots)
        // Idle connections kept for reuse: room for a few hosts.
        _ = packfs_multi_setopt_long(pointer, CURLMOPT_MAXCONNECTS, slots)
    }

    deinit {
        curl_multi_cleanup(pointer)
        curl_global_cleanup()
    }

    /// Thread-safe: interrupts (or pre-empts) the loop's curl_multi_poll.
    func wakeUp() { curl_multi_wakeup(pointer) }
}
