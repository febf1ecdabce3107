import Basics
import FoundationEssentials

/// One GET. `tag` comes back with the completion, so callers route results without a lookup table.
public struct HTTPRequest<Tag: Sendable>: Sendable {
    public var url: String
    /// Validators from a stored copy: the request is then conditional and may end `.notModified`.
    public var validators: HTTPValidators?
    /// Only these bytes of the resource (a PMTiles archive's header, directories or tiles).
    public var range: ByteRange?
    public var tag: Tag

    public init(url: String, validators: HTTPValidators? = nil, range: ByteRange? = nil, tag: Tag) {
        self.url = url
        self.validators = validators
        self.range = range
        self.tag = tag
    }
}

/// `length` (at least 1) bytes of a resource from `offset`, sent as `Range` with identity encoding. The
/// answer is a 206 with those bytes, or a 200 with the whole resource if the server ignores ranges.
public struct ByteRange: Sendable, Equatable {
    public var offset: UInt64
    public var length: UInt64
    /// Sent as If-Match, else a 412: an archive replaced mid-download mixes no tiles of two versions.
    public var ifMatch: String?

    public init(offset: UInt64, length: UInt64, ifMatch: String? = nil) {
        self.offset = offset
        self.length = max(length, 1)
        self.ifMatch = ifMatch
    }

    /// libcurl's CURLOPT_RANGE text: first and last byte, inclusive.
    public var header: String { "\(offset)-\(offset &+ length &- 1)" }
}

/// What a stored copy knows about its version: sent as If-None-Match / If-Modified-Since.
public struct HTTPValidators: Sendable, Equatable {
    /// The ETag exactly as the server sent it (quotes and `W/` included).
    public var etag: String?
    /// Last-Modified in Unix seconds, as `CacheHeaders.modified` stores it.
    public var modified: Int64?

    public init(etag: String? = nil, modified: Int64? = nil) {
        self.etag = etag
        self.modified = modified
    }

    public init(_ headers: CacheHeaders) {
        self.init(etag: headers.etag, modified: headers.modified)
    }

    var isEmpty: Bool { etag == nil && modified == nil }
}

/// A 200 response, decoded once.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The content as the server meant it (transfer compression removed): parse or validate this.
    public var content: Data
    /// What the database stores: zlib only when strictly smaller than `content`. A gzip body is
    /// re-framed as zlib rather than recompressed.
    public var stored: StoredData
    public var headers: CacheHeaders
    /// Bytes received on the wire for the body (before inflation).
    public var wireBytes: Int
}

/// A request's answer that is not a failure.
public enum HTTPAnswer: Sendable {
    /// 200 (or another 2xx with content).
    case ok(HTTPResponse)
    /// 304 to a conditional request; the headers refresh the stored copy's expiry.
    case notModified(CacheHeaders)
    /// 204 or 404: the resource has no content.
    case noContent(status: Int, headers: CacheHeaders)

    /// The HTTP status it came with.
    public var status: Int {
        switch self {
        case .ok(let response): return response.status
        case .notModified: return 304
        case .noContent(let status, _): return status
        }
    }
}

/// The final result of one request, after redirects and retries: its answer, or an error naming the URL and
/// cause (any 4xx but 404 among them). `AttemptClassifier` is the one place that tells the two apart.
public typealias HTTPOutcome = Result<HTTPAnswer, HTTPError>

/// Delivered once for every submitted request.
public struct HTTPCompletion<Tag: Sendable>: Sendable {
    public var request: HTTPRequest<Tag>
    public var outcome: HTTPOutcome
    /// The URL that answered last (differs from `request.url` after redirects).
    public var finalURL: String
    /// Attempts made (1 when the first one settled it); redirects are not attempts.
    public var attempts: Int
    /// New connections opened for this request (CURLINFO_NUM_CONNECTS summed over attempts).
    public var newConnections: Int

    public var tag: Tag { request.tag }
}

/// Running totals, readable from any thread.
public struct HTTPStatistics: Sendable, Equatable {
    /// Attempts handed to libcurl (first tries, retries and redirect hops).
    public var attempts = 0
    public var retries = 0
    public var completed = 0
    /// Connections libcurl opened; with keep-alive this stays near the concurrency.
    public var connections = 0
    public var wireBytes = 0
    /// Attempts abandoned after receiving nothing for the stall timeout (each one retried).
    public var stalls = 0
    /// Attempts started while `concurrency` transfers were in flight, in the place of quiet ones.
    public var besideQuiet = 0

    public init() {}
}
