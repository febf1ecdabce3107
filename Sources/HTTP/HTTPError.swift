import Basics

/// Why a request was refused or failed, one case per cause naming its URL: the one-line
/// `description` is what a pack's `error` says (a run's other failures: `DownloadError`).
public enum HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    // URLs that may not be requested: nothing was sent.
    /// Only http and https are fetched (after `mapbox://` expansion and `--rewrite`).
    case unsupportedScheme(url: String)
    /// The URL could not be parsed (by libcurl's own parser, the one that would send it).
    case malformedURL(url: String)
    /// The URL's host (`host`, or `host:port` as the client judges it) is not in `--allow-host`.
    case hostNotAllowed(host: String, url: String)

    // Requests that failed, after redirects and retries.
    /// A redirect pointed at a host (`host:port`) that is not allowed; it was not followed.
    case redirectRefused(host: String, from: String, to: String)
    /// A redirect pointed at a URL that is not http or https; it was not followed.
    case redirectSchemeRefused(from: String, to: String)
    case tooManyRedirects(url: String)
    /// The URL's host resolved to (or is) an address that is not public, and the URL is on no
    /// origin the user vouched for (`AddressReach`): no connection was opened.
    case addressRefused(url: String, address: String, scope: AddressScope)
    /// An HTTP status the caller cannot use: a 4xx other than 404, a 5xx/429 after the last
    /// retry, a 3xx without a target, or "no content" for a document.
    case status(Int, url: String)
    /// libcurl's failure (connect, reset, timeout, truncated body...), with its CURLcode.
    case network(code: Int, message: String, url: String)
    /// A compressed body that does not inflate (damaged on the way: worth another attempt).
    case corruptBody(reason: String, url: String)
    /// A body in a Content-Encoding PackFS does not decode.
    case unsupportedEncoding(String, url: String)
    case bodyTooLarge(limit: Int, url: String)
    /// The client was shut down, or the caller cancelled the request.
    case cancelled(url: String)
    /// libcurl could not be initialised, or the client's configuration is unusable.
    case setup(String)

    /// Redacted (`Redaction`): URLs here are the requested ones, `access_token` included.
    public var description: String { Redaction.text(plainDescription) }

    private var plainDescription: String {
        switch self {
        case .unsupportedScheme(let url): return "refused \(url): only http and https URLs are fetched"
        case .malformedURL(let url): return "malformed URL \(url)"
        case .hostNotAllowed(let host, let url): return "refused \(url): host \(host) is not allowed (--allow-host)"
        case .redirectRefused(let host, let from, let to):
            return "refused redirect from \(from) to \(to): host \(host) is not allowed"
        case .redirectSchemeRefused(let from, let to):
            return "refused redirect from \(from) to \(to): only http and https URLs are fetched"
        case .tooManyRedirects(let url): return "too many redirects for \(url)"
        case .addressRefused(let url, let address, let scope):
            return "refused \(url): it leads to \(address), a \(scope.rawValue) address, which only the style's own "
                + "origin or a host named by --allow-host may reach"
        case .status(let status, let url): return "HTTP \(status) for \(url)"
        case .network(let code, let message, let url): return "\(url): \(message) (curl error \(code))"
        case .corruptBody(let reason, let url): return "bad response body from \(url): \(reason)"
        case .unsupportedEncoding(let coding, let url):
            return "bad response body from \(url): unsupported Content-Encoding \(coding)"
        case .bodyTooLarge(let limit, let url): return "response from \(url) exceeds \(limit) bytes"
        case .cancelled(let url): return "cancelled \(url)"
        case .setup(let reason): return "HTTP client setup failed: \(reason)"
        }
    }
}
