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
    /// Seconds a sent request may receive nothing before it is abandoned and retried (`--stall-timeout`).
    public var stallTimeout = 5.0
    /// Seconds of silence after which a transfer stops counting against `concurrency` (at most half of
    /// `stallTimeout`), so silent transfers do not hold up the rest; at most `concurrency` more start so.
    public var quietAfter = 1.0
    /// Largest body accepted, on the wire and inflated.
    public var maxBodyBytes = Zlib.maxInflatedBytes
    /// Threads inflating 2xx bodies beside the loop thread; one suffices (docs/benchmarks.md, "The
    /// download's decoders").
    public var decoders = 1
    /// A PEM file of certificate authorities to trust instead of the system's (e.g. a private CA).
    public var caFile: String?
    /// libcurl's own trace on stderr.
    public var verbose = false

    public init() {}

    /// Easy handles and connections per host: `concurrency` plus as many for transfers started beside quiet ones.
    var slots: Int { 2 * concurrency }
}

/// An HTTP client on libcurl's multi interface.
///
/// Concepts. Callers `submit` requests (URL, optional validators, opaque tag) from any thread and receive
/// exactly one `HTTPCompletion` each. One loop thread owns the multi handle and `slots` reusable easy handles;
/// requests beyond `concurrency` wait in a queue. Connections are reused (HTTP/1.1) or multiplexed (HTTP/2).
/// 2xx bodies are decoded on `decoders` workers (`DecodePool`) while the slot carries the next transfer.
///
/// Threading. `completion` runs on the loop thread or on a decoding worker (2xx bodies), so calls CAN BE
/// CONCURRENT and unordered: it must be thread-safe and cheap, since its thread waits. It may call `submit`,
/// `cancel` and `shutdown` (which then does not wait). `shutdown` returns after every completion has
/// returned, except that a request submitted after it completes at once, `.cancelled`, on the caller's thread.
///
/// Errors. Every URL, redirects included, must be http/https and pass `allowHost`, or nothing is sent.
/// Network failures, corrupt bodies, stalls, 5xx and 429 are retried (`RetryPolicy`); the rest is final.
public final class HTTPClient<Tag: Sendable>: @unchecked Sendable {  // the URL inspector (libcurl's parser) is guarded by `inspecting`; the rest never changes
    private let multi: MultiHandle
    private let inbox = Inbox<Tag>()
    private let statisticsBox = StatisticsBox()
    private let completion: @Sendable (HTTPCompletion<Tag>) -> Void
    private let finished = DispatchGroup()
    private let thread: NativeThread
    private let decoders: DecodePool<Tag>
    /// Judges each request's URL on the submitting thread, off the loop thread that paces every transfer.
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

    /// Ends every request whose tag matches, wherever it is, with `.failure(.cancelled)`, asynchronously
    /// (a body already decoded may still complete with its real outcome).
    public func cancel(where predicate: @escaping @Sendable (Tag) -> Bool) {
        inbox.post(cancellation: predicate)
        multi.wakeUp()
    }

    /// Cancels everything outstanding and stops the loop and decoders; waits for them and every completion
    /// unless called from a completion. Idempotent.
    public func shutdown() {
        inbox.close()
        multi.wakeUp()
        if !thread.isCurrent && !decoders.runsOnCurrentThread { finished.wait() }
    }

    /// Totals so far; updated by the loop after each turn.
    public var statistics: HTTPStatistics { statisticsBox.current }
}

/// The multi handle, shared by the client (which only wakes the loop) and the loop. Whichever lets go last
/// cleans it up, so a wake-up never meets a freed handle.
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
