/// Every failure the Downloader reports. Each case names the URL (and, for documents, the field)
/// that failed, so that the one-line `description` is enough for a user to act on.
public enum DownloadError: Error, Equatable, CustomStringConvertible {
    /// A style or TileJSON document that is not JSON, or not a JSON object.
    case invalidJSON(url: String, reason: String)
    /// A field of a style or TileJSON document with a value PackFS cannot use.
    case invalidField(url: String, field: String, reason: String)
    /// A URL whose scheme PackFS never fetches (`file://`, `asset://`, ...). `field` says where it
    /// was found ("sources.x.url of <style URL>", or "request" for a URL about to be requested).
    case unsupportedScheme(url: String, field: String)
    /// A relative reference with no http(s) document URL to resolve it against (a plain path).
    case unresolvableReference(reference: String, field: String, base: String)
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
        case .invalidJSON(let url, let reason):
            return "\(url): \(reason)"
        case .invalidField(let url, let field, let reason):
            return "\(url): \(field): \(reason)"
        case .unsupportedScheme(let url, let field):
            return "\(url) (\(field)): only http, https and mapbox URLs are fetched"
        case .unresolvableReference(let reference, let field, let base):
            return "\(reference) (\(field)): a plain path is only resolved against an http(s)"
                + " document URL, not \(base)"
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
