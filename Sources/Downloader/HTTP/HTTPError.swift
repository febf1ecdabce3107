/// Everything the HTTP layer reports as a failure; each case names the URL it concerns.
public enum HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Only http and https are fetched; nothing was sent.
    case unsupportedScheme(url: String)
    /// The URL could not be parsed (by libcurl's own parser, the one that would send it).
    case malformedURL(url: String)
    /// The request's own host (`host:port`) is not on the allow list; nothing was sent.
    case hostNotAllowed(host: String, url: String)
    /// A redirect pointed at a host (`host:port`) that is not allowed; it was not followed.
    case redirectRefused(host: String, from: String, to: String)
    /// A redirect pointed at a URL that is not http or https; it was not followed.
    case redirectSchemeRefused(from: String, to: String)
    case tooManyRedirects(url: String)
    /// An HTTP status the caller cannot use: a 4xx, a 5xx/429 after the last retry, or a 3xx
    /// without a target.
    case status(Int, url: String)
    /// libcurl's failure (connect, reset, timeout, truncated body...), with its CURLcode.
    case network(code: Int, message: String, url: String)
    /// The body claimed a Content-Encoding it does not decode with (corrupt gzip, unknown coding).
    case badBody(reason: String, url: String)
    case bodyTooLarge(limit: Int, url: String)
    /// The client was shut down, or the caller cancelled the request.
    case cancelled(url: String)
    /// libcurl could not be initialised.
    case setup(String)

    public var description: String {
        switch self {
        case .unsupportedScheme(let url): return "refused \(url): only http and https URLs are fetched"
        case .malformedURL(let url): return "malformed URL \(url)"
        case .hostNotAllowed(let host, let url): return "refused \(url): host \(host) is not allowed"
        case .redirectRefused(let host, let from, let to):
            return "refused redirect from \(from) to \(to): host \(host) is not allowed"
        case .redirectSchemeRefused(let from, let to):
            return "refused redirect from \(from) to \(to): only http and https URLs are fetched"
        case .tooManyRedirects(let url): return "too many redirects for \(url)"
        case .status(let status, let url): return "HTTP \(status) for \(url)"
        case .network(let code, let message, let url): return "\(url): \(message) (curl error \(code))"
        case .badBody(let reason, let url): return "bad response body from \(url): \(reason)"
        case .bodyTooLarge(let limit, let url): return "response from \(url) exceeds \(limit) bytes"
        case .cancelled(let url): return "cancelled \(url)"
        case .setup(let reason): return "HTTP client setup failed: \(reason)"
        }
    }
}
