import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// When and how often a failed attempt is tried again.
///
/// Retried: network failures (connect, reset, timeout, truncated or empty answers), bodies that fail
/// to inflate, 5xx and 429. The delay before attempt n+1 is `baseDelay * 2^(n-1)` capped at
/// `maxDelay`, with "equal jitter" (half fixed, half random) so that many transfers failing
/// together do not return together; a Retry-After from the server is a lower bound.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// Seconds.
    public var baseDelay: Double
    public var maxDelay: Double
    /// A longer Retry-After is clamped to this, so one server cannot park a download for hours.
    public var maxRetryAfter: Double

    public init(maxAttempts: Int = 8, baseDelay: Double = 0.2, maxDelay: Double = 30, maxRetryAfter: Double = 300) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// Seconds to wait after `attempt` (1-based) failed.
    func delay<R: RandomNumberGenerator>(afterAttempt attempt: Int, retryAfter: Double?, using random: inout R) -> Double {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let backoff = min(maxDelay, baseDelay * pow(2, exponent))
        let jittered = backoff / 2 + Double.random(in: 0...(backoff / 2), using: &random)
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, maxRetryAfter))
    }

    /// libcurl results that another attempt may cure. Anything else (bad URL, TLS verification,
    /// our own write abort) fails at once.
    ///
    /// An answer that is not HTTP (CURLE_WEIRD_SERVER_REPLY, or CURLE_UNSUPPORTED_PROTOCOL's
    /// "Received HTTP/0.9 when not allowed": only http and https URLs ever reach libcurl) is
    /// retried too: a server whose Content-Length fell short of its body leaves the rest on the
    /// connection, and the next request there read it as its answer. That request failed, and its
    /// pack with it, for another resource's fault; the retry goes out on a new connection.
    static func isTransient(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR,
             CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL:
            return true
        default:
            return false
        }
    }

    /// Statuses another attempt may cure: server errors, 408 and 429.
    static func isTransient(status: Int) -> Bool {
        status >= 500 || status == 429 || status == 408
    }
}
