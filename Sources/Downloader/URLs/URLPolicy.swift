import HTTP
import PackStore
import StyleModel

/// The Mapbox token, `--rewrite FROM=TO` rules and `--allow-host` list: turns a stored URL into the
/// one requested, and vets every URL the HTTP client is about to contact (redirects included).
public struct URLPolicy: Sendable, Equatable {
    /// Expands `mapbox://` URLs; nil means such URLs fail with `missingAccessToken`.
    public var accessToken: String?
    /// Tried in order; the first whose `from` prefixes the URL wins, at most one per URL.
    public var rewrites: [URLRewrite]
    /// Hosts (`example.com`) or hosts with a port (`127.0.0.1:8181`) that may be contacted,
    /// compared case-insensitively; empty allows every host.
    public var allowedHosts: [String]

    public init(accessToken: String? = nil, rewrites: [URLRewrite] = [], allowedHosts: [String] = []) {
        self.accessToken = accessToken
        self.rewrites = rewrites
        self.allowedHosts = allowedHosts
    }

    /// The http(s) URL to request for the resource stored under `url` and used as `kind`. Rewrites are
    /// tried on the stored form first (a `mapbox://` URL to a mirror needs no token), then on the
    /// expanded `mapbox://` form. The result must be http(s) and pass `checkContact`.
    public func requestURL(for url: String, kind: ResourceKind) throws -> String {
        let rewritten = rewrite(url)
        var target = rewritten ?? url
        if MapboxURL.isMapbox(target) {
            target = try MapboxExpansion.expand(target, kind: kind, accessToken: accessToken)
            if rewritten == nil { target = rewrite(target) ?? target }
        }
        try checkContact(target)
        return target
    }

    /// Throws unless `url` is http(s) and its host is allowed. (The HTTP client checks each
    /// redirect target with `allows(host:port:)` before following it.)
    public func checkContact(_ url: String) throws {
        let scheme = URLString.scheme(of: url)
        guard scheme == "http" || scheme == "https", let host = URLString.host(of: url) else {
            throw HTTPError.unsupportedScheme(url: url)
        }
        let port = Self.explicitPort(of: url) ?? (scheme == "https" ? 443 : 80)
        if !allows(host: host, port: port) { throw HTTPError.hostNotAllowed(host: host, url: url) }
    }

    /// Whether `host` on `port` may be contacted: the list is empty, or names the host alone (any
    /// port) or with this port. IPv6 hosts may come with or without brackets.
    public func allows(host: String, port: Int) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let forms = [host, "\(host):\(port)", "[\(host)]:\(port)"]
        return allowedHosts.contains { forms.contains($0.lowercased()) }
    }

    /// The port written in `url`'s authority, if any.
    private static func explicitPort(of url: String) -> Int? {
        guard var authority = URLString.authority(of: url) else { return nil }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let close = authority.lastIndex(of: "]") { authority = authority[authority.index(after: close)...] }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return Int(authority[authority.index(after: colon)...])
    }

    private func rewrite(_ url: String) -> String? {
        guard let rule = rewrites.first(where: { url.hasPrefix($0.from) }) else { return nil }
        return rule.to + url.dropFirst(rule.from.count)
    }
}

/// One `--rewrite FROM=TO` rule: a URL starting with `from` is requested with `to` instead.
public struct URLRewrite: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    /// Parses the command-line form `FROM=TO`, split at the first `=`.
    public init(argument: String) throws {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw DownloadError.invalidRewrite(argument)
        }
        self.init(from: String(argument[..<equals]), to: String(argument[argument.index(after: equals)...]))
    }
}

extension URLPolicy {
    /// The rule for a run whose documents come from `styleURL` (the URL requested for the style,
    /// after rewriting): its origin, each rewrite's target and `--allow-host` are trusted.
    public func addressReach(styleURL: String?) -> AddressReach {
        let policy = self
        var allowed: (@Sendable (String, Int) -> Bool)?
        if !allowedHosts.isEmpty { allowed = { host, port in policy.allows(host: host, port: port) } }
        return AddressReach(trustedURLs: (styleURL.map { [$0] } ?? []) + rewrites.map(\.to), allowedHost: allowed)
    }
}
