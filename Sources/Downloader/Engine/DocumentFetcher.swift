import Foundation
import PackStore

/// Fetches for planning without a database (`packfs estimate`): single documents, and batches of
/// samples sent together (one round trip for all of them, not one each). Nothing is stored.
final class DocumentFetcher: Sendable {
    private let options: DownloadOptions
    private let client: HTTPClient<Int>
    private let outcomes: Outcomes

    /// Completions by tag, handed from the HTTP thread to the waiting caller.
    private final class Outcomes: @unchecked Sendable {  // `lock` guards `byTag` and `sent`; `group` counts the requests in flight
        let lock = NSLock()
        let group = DispatchGroup()
        var byTag: [Int: HTTPOutcome] = [:]
        var sent = 0
    }

    init(options: DownloadOptions) throws {
        self.options = options
        let outcomes = Outcomes()
        let policy = options.urlPolicy
        client = try HTTPClient<Int>(
            configuration: options.http, allowHost: { policy.allows(host: $0, port: $1) },
            completion: { completion in
                outcomes.lock.withLock { outcomes.byTag[completion.tag] = completion.outcome }
                outcomes.group.leave()
            })
        self.outcomes = outcomes
    }

    /// Requests sent so far.
    var requests: Int { outcomes.lock.withLock { outcomes.sent } }

    /// One document's content; anything but a 200 fails, naming the URL.
    func fetch(_ url: String, kind: ResourceKind) throws -> Data {
        let requestURL = try options.urlPolicy.requestURL(for: url, kind: kind)
        guard let outcome = try fetchAll([requestURL]).first else { throw HTTPError.setup("no answer for \(requestURL)") }
        switch outcome {
        case .ok(let response): return response.content
        case .clientError(let status), .noContent(let status, _): throw HTTPError.status(status, url: requestURL)
        case .failed(let error): throw error
        case .notModified: throw HTTPError.status(304, url: requestURL)
        }
    }

    /// The stored size of each URL (in stored form): "no content" (204, 404) is 0 bytes, a
    /// request that failed (or a URL the policy refuses) nil. Sent together.
    func storedSizes(_ urls: [(url: String, kind: ResourceKind)]) throws -> [Int64?] {
        let requests = urls.map { try? options.urlPolicy.requestURL(for: $0.url, kind: $0.kind) }
        let outcomes = try fetchAll(requests.compactMap { $0 })
        var next = outcomes.makeIterator()
        return requests.map { request in
            guard request != nil, let outcome = next.next() else { return nil }
            switch outcome {
            case .ok(let response): return Int64(response.stored.storedSize)
            case .noContent: return 0
            case .clientError, .failed, .notModified: return nil
            }
        }
    }

    /// Sends every request at once and waits for all of them; outcomes in request order.
    private func fetchAll(_ urls: [String]) throws -> [HTTPOutcome] {
        let first = outcomes.lock.withLock {
            defer { outcomes.sent += urls.count }
            return outcomes.sent
        }
        for _ in urls { outcomes.group.enter() }
        client.submit(contentsOf: urls.enumerated().map { HTTPRequest(url: $1, tag: first + $0) })
        outcomes.group.wait()
        return try outcomes.lock.withLock {
            try (first..<(first + urls.count)).map { tag in
                guard let outcome = outcomes.byTag.removeValue(forKey: tag) else {
                    throw HTTPError.setup("no answer for request \(tag)")
                }
                return outcome
            }
        }
    }

    func shutdown() { client.shutdown() }
}
