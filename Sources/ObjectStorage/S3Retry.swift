import Basics
import FoundationEssentials

/// What an upload retries (`RetryPolicy`, Basics', says when and how often).
extension RetryPolicy {
    /// Uploads' budget: fewer attempts than downloads', further apart.
    public static let upload = RetryPolicy(maxAttempts: 5, baseDelay: 0.5, maxDelay: 30)

    /// Whether an HTTP answer is worth another try: S3's "try again" statuses (500, 502, 503
    /// SlowDown, 504), 429, 408, and 400 RequestTimeout (a body that came too slowly).
    static func retryable(status: Int, code: String?) -> Bool {
        [408, 429, 500, 502, 503, 504].contains(status) || code == "RequestTimeout" || code == "InternalError"
            || code == "SlowDown"
    }
}
