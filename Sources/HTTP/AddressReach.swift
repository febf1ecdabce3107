/// Which requests may connect to an address that is not public (`AddressScope`), by docs/design.md
/// §4, "Where a document may send PackFS": what a server's style names is untrusted and what PackFS
/// stores every reader of the mount can read, so a URL reaches non-public addresses only on an
/// origin the user named (the style's, a `--rewrite` target) or a host `--allow-host` names.
/// Each hop is judged by its URL here, and each connection's address by `AddressScope`.
public struct AddressReach: Sendable {
    /// URLs whose origins may reach any address; parsed by the client with libcurl's parser.
    public var trustedURLs: [String]
    /// Whether `--allow-host` names this host (or host and port); nil when it names none.
    public var allowedHost: (@Sendable (_ host: String, _ port: Int) -> Bool)?
    /// Every request may reach every address: a client that fetches only what the user named.
    public var unrestricted: Bool

    public init(trustedURLs: [String] = [], allowedHost: (@Sendable (String, Int) -> Bool)? = nil,
                unrestricted: Bool = false) {
        self.trustedURLs = trustedURLs
        self.allowedHost = allowedHost
        self.unrestricted = unrestricted
    }

    /// No limit on addresses (the HTTP client's default, for callers that name every URL).
    public static let anywhere = AddressReach(unrestricted: true)
}

/// One origin as libcurl parses it: scheme and host lowercased, the port the scheme implies when
/// none is written. Two URLs on one origin share their connections, so they must share a verdict.
struct Endpoint: Hashable, Sendable {
    var scheme: String
    var host: String
    var port: Int
}

/// `AddressReach` with its trusted URLs parsed: the verdict for each hop of a request.
struct ReachJudge: Sendable {
    let trusted: Set<Endpoint>
    let reach: AddressReach

    init(_ reach: AddressReach, inspector: URLInspector) {
        self.reach = reach
        trusted = reach.unrestricted ? [] : inspector.endpoints(of: reach.trustedURLs)
    }

    /// Whether a hop to `endpoint` may connect to addresses that are not public.
    func mayReachAnyAddress(_ endpoint: Endpoint) -> Bool {
        reach.unrestricted || trusted.contains(endpoint) || reach.allowedHost?(endpoint.host, endpoint.port) == true
    }
}
