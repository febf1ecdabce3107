import CCurl
import FoundationEssentials

/// One S3 request: the method, the object, the query (canonical: see `S3Encoding`) and the
/// object's content type when it creates one.
struct S3Request {
    var method: String
    var object: ObjectLocation
    var query: String
    var contentType = "application/octet-stream"
    /// What the request does, for errors ("part 3 of 5").
    var step: String
}

/// What S3 answered: the status, the ETag header (parts), the body (XML, small).
struct S3Response {
    var status: Int
    var etag: String?
    var body: Data
}

/// One libcurl easy handle, reused for every request of an upload (one connection kept alive),
/// each request signed by libcurl (CURLOPT_AWS_SIGV4). Requests go one at a time, on the
/// caller's thread; the callbacks find the connection through their userdata pointer,
/// unretained: the handle lives exactly as long as the connection.
final class S3Connection {
    private let handle: UnsafeMutableRawPointer
    private let configuration: S3Configuration
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var body = Data()
    private var etag: String?
    /// Error bodies are a few hundred bytes of XML; more is not S3 talking.
    private static let maxBodyBytes = 1 << 20
    private static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    init(configuration: S3Configuration) throws {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard let handle = curl_easy_init() else { throw ObjectStorageError.configuration("curl_easy_init failed") }
        self.handle = handle
        self.configuration = configuration
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configure()
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    private func configure() throws {
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
            // A request that moves under a byte a second for a minute is dead: retried.
            packfs_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1),
            packfs_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 60),
            packfs_easy_setopt_str(handle, CURLOPT_AWS_SIGV4, "aws:amz:\(configuration.region):s3"),
            packfs_easy_setopt_str(handle, CURLOPT_USERPWD, "\(configuration.accessKeyID):\(configuration.secretAccessKey)"),
        ]
        if let caBundle = configuration.caBundle { codes.append(packfs_easy_setopt_str(handle, CURLOPT_CAINFO, caBundle)) }
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw ObjectStorageError.configuration("curl_easy_setopt: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    /// Sends `request` with `payload` as its body (empty: none) and waits for the answer. A
    /// transport failure (no connection, a reset, a timeout) is `.failure` with libcurl's words
    /// and whether trying again may help.
    func send(_ request: S3Request, payload: UnsafeRawBufferPointer) -> Result<S3Response, TransportFailure> {
        body = Data()
        etag = nil
        errorBuffer[0] = 0
        // The payload's hash, signed: libcurl 7.88 signs this header's value as the payload
        // hash, and S3 checks it against the bytes it received.
        let hash = payload.isEmpty ? Self.emptyPayloadHash : SHA256.hex(payload)
        var headers = curl_slist_append(nil, "x-amz-content-sha256: \(hash)")
        // Always a real type: libcurl's default for a body (form-urlencoded) makes servers parse
        // it as a form, and an empty "Content-Type:" to drop it breaks 7.88's signature.
        headers = curl_slist_append(headers, "Content-Type: \(request.contentType)")
        if let token = configuration.sessionToken { headers = curl_slist_append(headers, "x-amz-security-token: \(token)") }
        defer { curl_slist_free_all(headers) }
        let url = configuration.url(of: request.object, query: request.query)
        let empty = UnsafeMutableRawPointer(mutating: Self.emptyBody.utf8Start)
        let prepared = packfs_easy_setopt_long(handle, CURLOPT_HTTPGET, 1) == CURLE_OK
            && packfs_easy_setopt_str(handle, CURLOPT_URL, url) == CURLE_OK
            && packfs_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, headers) == CURLE_OK
            && (request.method == "GET" || request.method == "DELETE" || (
                packfs_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.count)) == CURLE_OK
                    && packfs_easy_setopt_ptr(handle, CURLOPT_POSTFIELDS, payload.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? empty)
                        == CURLE_OK))
            && packfs_easy_setopt_str(handle, CURLOPT_CUSTOMREQUEST, request.method) == CURLE_OK
        guard prepared else { return .failure(TransportFailure(message: "libcurl refused the request's options", retryable: false)) }
        let code = curl_easy_perform(handle)
        // Nothing of the payload outlives the call.
        _ = packfs_easy_setopt_ptr(handle, CURLOPT_POSTFIELDS, nil)
        guard code == CURLE_OK else {
            let message = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            return .failure(TransportFailure(message: message, retryable: !Self.permanent.contains(code)))
        }
        var status = 0
        _ = packfs_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(S3Response(status: status, etag: etag, body: body))
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
        guard body.count + count <= Self.maxBodyBytes else { return 0 }
        body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    fileprivate func receive(headerLine bytes: UnsafeRawPointer, count: Int) {
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "etag" else { return }
        let value = line[line.index(after: colon)...].drop(while: \.isWhitespace)
        etag = String(value.reversed().drop(while: \.isWhitespace).reversed())
    }
}

/// A request that got no HTTP answer.
struct TransportFailure: Error {
    var message: String
    var retryable: Bool
}

// The callbacks libcurl calls during `curl_easy_perform`. They never trap: a missing pointer
// aborts the transfer (returning 0), which surfaces as an ordinary CURLE_WRITE_ERROR.
private let receiveBody: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    return Unmanaged<S3Connection>.fromOpaque(userdata).takeUnretainedValue().receive(body: UnsafeRawPointer(data), count: size * count)
}

private let receiveHeader: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    Unmanaged<S3Connection>.fromOpaque(userdata).takeUnretainedValue().receive(headerLine: UnsafeRawPointer(data), count: size * count)
    return size * count
}
