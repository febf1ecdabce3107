/// A bad style or TileJSON; each case names the URL (and field), so `description` alone lets a user act.
public enum StyleError: Error, Equatable, CustomStringConvertible {
    /// A style or TileJSON document that is not JSON, or not a JSON object.
    case invalidJSON(url: String, reason: String)
    /// A field of a style or TileJSON document with a value PackFS cannot use.
    case invalidField(url: String, field: String, reason: String)
    /// A URL whose scheme PackFS never fetches (`file://`, `asset://`); `field` says where it was.
    case unsupportedScheme(url: String, field: String)
    /// A relative reference with no http(s) document URL to resolve it against (a plain path).
    case unresolvableReference(reference: String, field: String, base: String)
    /// A document fetched as a style that is none: what it lacks, and what it looks like instead.
    case notAStyle(url: String, missing: [String], looksLike: String?)

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
        case .notAStyle(let url, let missing, let looksLike):
            return "\(url): not a MapLibre style (no \(missing.joined(separator: ", ")))"
                + (looksLike.map { "; it looks like \($0)" } ?? "")
        }
    }
}
