import CCurl
import FoundationEssentials

/// Requests one at a time on the caller's thread over one kept-alive easy handle: object storage's
/// uploads. No redirect is followed; a request under a byte a second for a minute is dead. One per caller.
public final class SerialClient {
    /// How every request of this client is sent.
    public struct Options: Sendable {
        /// libcurl's CURLOPT_AWS_SIGV4 (`aws:amz:REGION:SERVICE`), with `credentials`
        /// (`KEY:SECRET`) as CURLOPT_USERPWD: each request signed with AWS Signature Version 4.
        public var awsSigV4: String?
        public var credentials: String?
        /// A CA bundle in place of the system's.
        public var caBundle: String?
        /// The most of a body kept; a longer answer fails the request.
        public var maxBodyBytes: Int

        public init(awsSigV4: String? = nil, credentials: String? = nil, caBundle: String? = nil, maxBodyBytes: Int = 1 << 20) {
            self.awsSigV4 = awsSigV4
            self.credentials = credentials
            self.caBundle = caBundle
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// An answer: its status, its ETag, its body.
    public struct Answer: Sendable {
        public var status: Int
        public var etag: String?
        public var body: Data
    }

    /// No HTTP answer (no connection, a reset, a timeout), in libcurl's words, and whether
    /// another attempt may help; or a client libcurl would not set up.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var retryable: Bool
        public var description: String { message }
    }

    private let easy: EasyHandle

    public init(options: Options) throws(Failure) {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        do {
            easy = try EasyHandle(userAgent: "packfs", connectTimeout: 10, caFile: options.caBundle,
                                  maxBodyBytes: options.maxBodyBytes)
            let handle = easy.handle
            try easy.check([
                packfs_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1),
                packfs_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 60),
                options.awsSigV4.map { packfs_easy_setopt_str(handle, CURLOPT_AWS_SIGV4, $0) } ?? CURLE_OK,
                options.credentials.map { packfs_easy_setopt_str(handle, CURLOPT_USERPWD, $0) } ?? CURLE_OK,
            ])
        } catch {
            throw Failure(message: error.description, retryable: false)
        }
    }

    /// Sends `method` to `url` with `headers` (`Name: value` lines) and `payload` as the body
    /// (GET and DELETE send none), and waits for the answer.
    public func send(_ method: String, url: String, headers lines: [String], payload: UnsafeRawBufferPointer)
        -> Result<Answer, Failure>
    {
        easy.reset()
        let handle = easy.handle
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines { list = curl_slist_append(list, line) }
        defer { curl_slist_free_all(list) }
        let empty = UnsafeMutableRawPointer(mutating: Self.emptyBody.utf8Start)
        let prepared = packfs_easy_setopt_long(handle, CURLOPT_HTTPGET, 1) == CURLE_OK
            && packfs_easy_setopt_str(handle, CURLOPT_URL, url) == CURLE_OK
            && packfs_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, list) == CURLE_OK
            && (method == "GET" || method == "DELETE" || (
                packfs_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.count)) == CURLE_OK
                    && packfs_easy_setopt_ptr(handle, CURLOPT_POSTFIELDS, payload.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? empty)
                        == CURLE_OK))
            && packfs_easy_setopt_str(handle, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK
        guard prepared else { return .failure(Failure(message: "libcurl refused the request's options", retryable: false)) }
        let code = curl_easy_perform(handle)
        // Nothing of the payload outlives the call.
        _ = packfs_easy_setopt_ptr(handle, CURLOPT_POSTFIELDS, nil)
        guard code == CURLE_OK else {
            return .failure(Failure(message: easy.message(for: code), retryable: !Self.permanent.contains(code)))
        }
        var status = 0
        _ = packfs_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(Answer(status: status, etag: easy.headers.etag, body: easy.takeBody()))
    }

    /// libcurl errors no retry can mend: the URL, the TLS peer, this process's own state.
    private static let permanent: Set<CURLcode> = [
        CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_OUT_OF_MEMORY,
        CURLE_BAD_FUNCTION_ARGUMENT, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
        CURLE_LOGIN_DENIED, CURLE_WRITE_ERROR,
    ]

    /// A body of no bytes that lives as long as the process (libcurl wants a pointer even then).
    private static let emptyBody: StaticString = ""
}
