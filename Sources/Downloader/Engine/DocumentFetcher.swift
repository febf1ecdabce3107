import Basics
import FoundationEssentials
import HTTP
import PackStore
import Dispatch

/// Fetches for planning without a database (`packfs estimate`): single documents, and batches of
/// samples sent together (one round trip for all of them, not one each). Nothing is stored.
final class DocumentFetcher: Sendable {
    private let options: DownloadOptions
    private let client: HTTPClient<Int>
    private let outcomes: Outcomes

    /// Completions by tag, handed from the HTTP thread to the waiting caller.
    private final class Outcomes: @unchecked Sendable {  // `lock` guards `byTag` and `sent`; `group` counts the requests in flight
        let lock = Lock()
        let group = DispatchGroup()
        var byTag: [Int: HTTPOutcome] = [:]
        var sent = 0
    }

    /// `trusting`: the URL the user named, whose origin may reach any address; what it names may
    /// not, unless the policy allows it (`AddressReach`).
    init(options: DownloadOptions, trusting userURL: String?) throws {
        self.options = options
        let outcomes = Outcomes()
        let policy = options.urlPolicy
        let trusted = userURL.flatMap { try? policy.requestURL(for: $0, kind: .style) } ?? userURL
        client = try HTTPClient<Int>(
            configuration: options.http, allowHost: { policy.allows(host: $0, port: $1) },
            reach: policy.addressReach(styleURL: trusted),
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
        try response(try options.urlPolicy.requestURL(for: url, kind: kind), range: nil).content
    }

    /// Bytes `range` of the resource at `url` (a part of an archive), and the answer's headers.
    func fetch(_ url: String, range: ByteRange) throws -> RemoteArchive.Part {
        let requestURL = try options.urlPolicy.requestURL(for: url, kind: .source)
        let response = try response(requestURL, range: range)
        guard let data = RemoteArchive.bytes(of: response, for: range) else {
            throw HTTPError.status(response.status, url: requestURL)
        }
        return RemoteArchive.Part(data: data, headers: response.headers)
    }

    /// The answer with content to a request for `range` of `url`: a 206, or a 200 with the whole resource.
    func answer(_ url: String, range: ByteRange) throws -> HTTPResponse {
        try response(options.urlPolicy.requestURL(for: url, kind: .source), range: range)
    }

    /// The answer with content to one request; anything else fails, naming the URL.
    private func response(_ requestURL: String, range: ByteRange?) throws -> HTTPResponse {
        guard let answer = try fetchAll([(requestURL, range)]).first?.get() else { throw DownloadError.noAnswer(url: requestURL) }
        guard case .ok(let response) = answer else { throw HTTPError.status(answer.status, url: requestURL) }
        return response
    }

    /// The stored size of each URL (in stored form): "no content" (204, 404) is 0 bytes, a
    /// request that failed (or a URL the policy refuses) nil. Sent together.
    func storedSizes(_ urls: [(url: String, kind: ResourceKind)]) throws -> [Int64?] {
        let requests = urls.map { try? options.urlPolicy.requestURL(for: $0.url, kind: $0.kind) }
        let outcomes = try fetchAll(requests.compactMap { $0.map { ($0, nil) } })
        var next = outcomes.makeIterator()
        return requests.map { request in
            guard request != nil, case .success(let answer) = next.next() else { return nil }
            switch answer {
            case .ok(let response): return Int64(response.stored.storedSize)
            case .noContent: return 0
            case .notModified: return nil
            }
        }
    }

    /// Sends every request at once and waits for all of them; outcomes in request order.
    private func fetchAll(_ requests: [(url: String, range: ByteRange?)]) throws -> [HTTPOutcome] {
        let urls = requests.map(\.url)
        let first = outcomes.lock.withLock {
            defer { outcomes.sent += urls.count }
            return outcomes.sent
        }
        for _ in urls { outcomes.group.enter() }
        client.submit(contentsOf: requests.enumerated().map { HTTPRequest(url: $1.url, range: $1.range, tag: first + $0) })
        outcomes.group.wait()
        return try outcomes.lock.withLock {
            try zip(first..., urls).map { tag, url in
                guard let outcome = outcomes.byTag.removeValue(forKey: tag) else { throw DownloadError.noAnswer(url: url) }
                return outcome
            }
        }
    }

    func shutdown() { client.shutdown() }
}
