/// The Downloader's own failures: URLs it may not request. Each case names the URL, so that the
/// one-line `description` is enough for a user to act on. (What is wrong inside a style or
/// TileJSON document is a `StyleError`; HTTP failures are `HTTPError`s.)
public enum DownloadError: Error, Equatable, CustomStringConvertible {
    /// A URL about to be requested (after `--rewrite`, or a redirect target) whose scheme is not
    /// http or https. (Style and TileJSON fields are `StyleError`s.)
    case unsupportedScheme(url: String, field: String)
    /// A `mapbox://` URL that needs `--access-token`.
    case missingAccessToken(url: String)
    /// A `mapbox://` URL that does not name what its use needs (`mapbox://styles/...` for a style).
    case invalidMapboxURL(url: String, reason: String)
    /// A URL whose host is not in the `--allow-host` list.
    case hostNotAllowed(host: String, url: String)
    /// A `--rewrite` argument that is not `FROM=TO`.
    case invalidRewrite(String)

    public var description: String {
        switch self {
        case .unsupportedScheme(let url, let field):
            return "\(url) (\(field)): only http, https and mapbox URLs are fetched"
        case .missingAccessToken(let url):
            return "\(url): mapbox:// URLs need an access token (--access-token)"
        case .invalidMapboxURL(let url, let reason):
            return "\(url): \(reason)"
        case .hostNotAllowed(let host, let url):
            return "\(url): host \(host) is not allowed (--allow-host)"
        case .invalidRewrite(let argument):
            return "--rewrite \(argument): expected FROM=TO with a non-empty FROM"
        }
    }
}
