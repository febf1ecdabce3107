import CCurl
import FoundationEssentials

/// Requests one at a time on the caller's thread, over one libcurl easy handle that keeps its
/// connection alive between them: object storage's uploads (a part, then the next). The
/// downloads' many requests at once are `HTTPClient`'s. Redirects are not followed, only http
/// and https are spoken, and a request that moves under a byte a second for a minute is dead.
/// The callbacks find the client through their userdata pointer, unretained: the handle lives
/// exactly as long as the client. Not thread-safe: one per caller.
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

    /// An answer: its status, its header fields (names lowercased, the last of a repeated one),
    /// its body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
    }

    /// No HTTP answer (no connection, a reset, a timeout), in libcurl's words, and whether
    /// another attempt may help; or a client libcurl would not set up.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var retryable: Bool
        public var description: String { message }
    }

    private let handle: UnsafeMutableRawPointer
    private let options: Options
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var body = Data()
    private var headers: [String: String] = [:]

    public init(options: Options) throws(Failure) {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let handle = curl_easy_init() else { throw Failure(message: "curl_easy_init failed", retryable: false) }
        self.handle = handle
        self.options = options
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configure()
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    private func configure() throws(Failure) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = [
            packfs_easy_setopt_write(handle, CURLOPT_WRITEFUNCTION, receiveBody),
            packfs_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, me),
            packfs_easy_setopt_write(handle, CURLOPT_HEADERFUNCTION, receiveHeader),
            packfs_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, me),
            packfs_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer),
            packfs_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            packfs_easy_setopt_str(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            packfs_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            packfs_easy_setopt_str(handle, CURLOPT_USERAGENT, "packfs"),
            packfs_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 10_000),
            packfs_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1),
            packfs_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 60),
        ]
        if let signing = options.awsSigV4 { codes.append(packfs_easy_setopt_str(handle, CURLOPT_AWS_SIGV4, signing)) }
        if let credentials = options.credentials { codes.append(packfs_easy_setopt_str(handle, CURLOPT_USERPWD, credentials)) }
        if let caBundle = options.caBundle { codes.append(packfs_easy_setopt_str(handle, CURLOPT_CAINFO, caBundle)) }
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw Failure(message: "curl_easy_setopt: \(String(cString: curl_easy_strerror(failed)))", retryable: false)
        }
    }

    /// Sends `method` to `url` with `headers` (`Name: value` lines) and `payload` as the body
    /// (GET and DELETE send none), and waits for the answer.
    public func send(_ method: String, url: String, headers lines: [String], payload: UnsafeRawBufferPointer)
        -> Result<Answer, Failure>
    {
        body = Data()
        headers = [:]
        errorBuffer[0] = 0
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
            let message = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            return .failure(Failure(message: message, retryable: !Self.permanent.contains(code)))
        }
        var status = 0
        _ = packfs_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(Answer(status: status, headers: headers, body: body))
    }

    /// libcurl errors no retry can mend: the URL, the TLS peer, this process's own state.
    private static let permanent: Set<CURLcode> = [
        CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_NOT_BUILT_IN, CURLE_OUT_OF_MEMORY,
        CURLE_BAD_FUNCTION_ARGUMENT, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
        CURLE_LOGIN_DENIED, CURLE_WRITE_ERROR,
    ]

    /// A body of no bytes that lives as long as the process (libcurl wants a pointer even then).
    private static let emptyBody: StaticString = ""

    fileprivate func receive(body bytes: UnsafeRawPointer, count: Int) -> Int {
        guard count <= options.maxBodyBytes - body.count else { return 0 }
        body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    fileprivate func receive(headerLine bytes: UnsafeRawPointer, count: Int) {
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        guard let colon = line.firstIndex(of: ":") else { return }
        let value = line[line.index(after: colon)...].drop(while: \.isWhitespace)
        headers[line[..<colon].lowercased()] = String(value.reversed().drop(while: \.isWhitespace).reversed())
    }
}

// The callbacks libcurl calls during `curl_easy_perform`. They never trap: a missing pointer
// aborts the transfer (returning 0), which surfaces as an ordinary CURLE_WRITE_ERROR.
private let receiveBody: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    return Unmanaged<SerialClient>.fromOpaque(userdata).takeUnretainedValue().receive(body: UnsafeRawPointer(data), count: size * count)
}

private let receiveHeader: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    Unmanaged<SerialClient>.fromOpaque(userdata).takeUnretainedValue().receive(headerLine: UnsafeRawPointer(data), count: size * count)
    return size * count
}
