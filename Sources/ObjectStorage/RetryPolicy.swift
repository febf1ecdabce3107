import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How often and after how long a failed request is tried again: attempts in all, and the wait
/// before the first retry, doubled for each later one up to `maxDelay`. Each request of an
/// upload (each part on its own) gets the whole budget.
public struct RetryPolicy: Equatable, Sendable {
    public var maxAttempts: Int
    public var baseDelay: Double
    public var maxDelay: Double

    public init(maxAttempts: Int = 5, baseDelay: Double = 0.5, maxDelay: Double = 30) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Seconds to wait after failed attempt `attempt` (1-based).
    func delay(after attempt: Int) -> Double {
        min(maxDelay, baseDelay * pow(2, Double(min(attempt - 1, 30))))
    }

    /// Whether an HTTP answer is worth another try: S3's "try again" statuses (500, 502, 503
    /// SlowDown, 504), 429, 408, and 400 RequestTimeout (a body that came too slowly).
    static func retryable(status: Int, code: String?) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status) || code == "RequestTimeout" || code == "InternalError"
            || code == "SlowDown"
    }
}
