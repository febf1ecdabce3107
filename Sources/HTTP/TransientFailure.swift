import Basics
import CCurl

/// What the HTTP client retries (`RetryPolicy` says when): network failures, bodies that fail to
/// inflate, 5xx, 408 and 429.
extension RetryPolicy {
    /// libcurl results that another attempt may cure. Anything else (bad URL, TLS verification,
    /// our own write abort) fails at once.
    ///
    /// An answer that is not HTTP (CURLE_WEIRD_SERVER_REPLY, or "Received HTTP/0.9" under
    /// CURLE_UNSUPPORTED_PROTOCOL) is retried too: it is the leftover of a previous answer whose
    /// Content-Length fell short, and the retry goes out on a new connection.
    public static func isTransient(_ code: CURLcode) -> Bool {
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
    public static func isTransient(status: Int) -> Bool {
        status >= 500 || status == 429 || status == 408
    }
}
