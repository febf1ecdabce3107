import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// When and how often a failed attempt is retried, for downloads and S3 uploads alike (what is worth
/// retrying is each client's call). Attempt n+1 waits `baseDelay * 2^(n-1)`, capped at `maxDelay`,
/// half of it random so transfers failing together return apart; Retry-After is a floor.
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
    public func delay<R: RandomNumberGenerator>(afterAttempt attempt: Int, retryAfter: Double?, using random: inout R) -> Double {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let backoff = min(maxDelay, baseDelay * pow(2, exponent))
        let jittered = backoff / 2 + Double.random(in: 0...(backoff / 2), using: &random)
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, maxRetryAfter))
    }

    /// Seconds to wait after `attempt` (1-based) failed, with no Retry-After to honour.
    public func delay(afterAttempt attempt: Int) -> Double {
        var random = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, retryAfter: nil, using: &random)
    }
}
