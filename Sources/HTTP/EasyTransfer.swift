import CCurl
import FoundationEssentials

/// Options every easy handle gets once, at creation.
struct EasySettings {
    var userAgent: String
    var connectTimeout: Double
    var maxBodyBytes: Int
    var caFile: String?
    var verbose: Bool
}

/// What one attempt produced, copied out of the easy handle so the handle can be reused at once.
struct AttemptResult {
    var code: CURLcode
    /// libcurl's error buffer (or strerror); empty on success.
    var message: String
    var status: Int
    var headers: ResponseHeaderFields
    var body: Data
    var bodyTooLarge: Bool
    /// Where a 3xx points, made absolute by libcurl.
    var redirectURL: String?
    var newConnections: Int
    /// The request asked for a byte range: its body is used as received, never recompressed.
    var isRange = false
    /// A connection the address rule refused (`AddressReach`): the address and its scope.
    var refusedAddress: (address: String, scope: AddressScope)?
}

/// One reusable easy handle and the buffers its callbacks fill. There is one per transfer slot,
/// created with the client and kept for its life, so libcurl's per-handle caches stay warm and no
/// request pays for handle setup. The callbacks find it through their userdata pointer, unretained:
/// the loop owns every EasyTransfer for as long as its handle exists.
///
/// It also keeps the attempt's last sign of life (`lastActivity`), which the loop reads to find
/// silent transfers: libcurl's own low-speed check (CURLOPT_LOW_SPEED_TIME) judges a moving
/// average, so a transfer that received a little and then stopped went on well past the setting
/// (docs/reliability.md, "Stalls, the fault matrix, redirects").
final class EasyTransfer {
    let handle: UnsafeMutableRawPointer
    let slot: Int
    private let maxBodyBytes: Int
    private var body = Data()
    private var headers = ResponseHeaderFields()
    private var bodyTooLarge = false
    /// The conditional request's header list (nil when the shared list is used); freed per request.
    private var ownHeaders: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Monotonic nanoseconds of the attempt's last sign of life: its start, its request going
    /// out, a header line or body bytes arriving.
    private(set) var lastActivity: UInt64 = 0
    /// Whether the request went out on a connection (libcurl's pre-request callback). Only from
    /// then on is silence a stall; before, name resolution and the connect timeout govern.
    private(set) var requestSent = false
    /// Why the loop gave up on the attempt (`abandon`); it then ends as a timeout.
    private var abandonment: String?
    /// Whether the attempt asks for a byte range.
    private var isRange = false
    /// Whether the attempt may connect to an address that is not public (`AddressReach`).
    private var reachesAnyAddress = false
    /// The first connection of the attempt that the address rule refused.
    private var refusedAddress: (address: String, scope: AddressScope)?

    init(slot: Int, settings: EasySettings) throws {
        guard let handle = curl_easy_init() else { throw DownloadError.setup("curl_easy_init failed") }
        self.handle = handle
        self.slot = slot
        self.maxBodyBytes = settings.maxBodyBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configure(settings)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(ownHeaders)
        errorBuffer.deallocate()
    }

    private func configure(_ settings: EasySettings) throws {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let codes: [CURLcode] = [
            packfs_easy_setopt_ptr(handle, CURLOPT_PRIVATE, me),
            packfs_easy_setopt_write(handle, CURLOPT_WRITEFUNCTION, receiveBody),
            packfs_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, me),
            packfs_easy_setopt_write(handle, CURLOPT_HEADERFUNCTION, receiveHeader),
            packfs_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, me),
            packfs_easy_setopt_prereq(handle, CURLOPT_PREREQFUNCTION, requestGoesOut),
            packfs_easy_setopt_ptr(handle, CURLOPT_PREREQDATA, me),
            packfs_easy_setopt_opensocket(handle, CURLOPT_OPENSOCKETFUNCTION, socketOpener),
            packfs_easy_setopt_ptr(handle, CURLOPT_OPENSOCKETDATA, me),
            packfs_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer),
            packfs_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            // Only http and https, for the request and (were it ever on) for redirects.
            packfs_easy_setopt_str(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            packfs_easy_setopt_str(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
            // Redirects are followed by the loop, which checks each target host first.
            packfs_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            packfs_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
            packfs_easy_setopt_str(handle, CURLOPT_USERAGENT, settings.userAgent),
            // Bodies arrive as sent: Accept-Encoding is our own header and the body decoder keeps
            // the server's deflate stream. CURLOPT_ACCEPT_ENCODING stays unset.
            packfs_easy_setopt_long(handle, CURLOPT_HTTP_CONTENT_DECODING, 0),
            packfs_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(settings.connectTimeout * 1000)),
            // No CURLOPT_LOW_SPEED_*: the loop times out silent transfers itself (see above).
            packfs_easy_setopt_long(handle, CURLOPT_VERBOSE, settings.verbose ? 1 : 0),
        ]
        let caCode = settings.caFile.map { packfs_easy_setopt_str(handle, CURLOPT_CAINFO, $0) } ?? CURLE_OK
        if let failed = (codes + [caCode]).first(where: { $0 != CURLE_OK }) {
            throw DownloadError.setup("curl_easy_setopt: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    /// Points the handle at the next request. `shared` is the header list of unconditional
    /// requests; a conditional one gets its own list, freed when the next request is prepared.
    func prepare(url: String, validators: HTTPValidators?, range: ByteRange?, shared: UnsafeMutablePointer<curl_slist>?,
                 reachesAnyAddress: Bool) -> Bool
    {
        self.reachesAnyAddress = reachesAnyAddress
        refusedAddress = nil
        body = Data()
        headers = ResponseHeaderFields()
        bodyTooLarge = false
        errorBuffer[0] = 0
        lastActivity = MonotonicClock.now()
        requestSent = false
        abandonment = nil
        curl_slist_free_all(ownHeaders)
        ownHeaders = nil
        isRange = range != nil
        if let range {
            ownHeaders = RequestHeaders.ranged(range, validators: validators)
        } else if let validators, !validators.isEmpty {
            ownHeaders = RequestHeaders.conditional(validators)
        }
        // A reused handle keeps its last range: set (or cleared) on every request.
        let rangeSet = range.map { packfs_easy_setopt_str(handle, CURLOPT_RANGE, $0.header) }
            ?? packfs_easy_setopt_ptr(handle, CURLOPT_RANGE, nil)
        // Over TLS, wait for an HTTP/2 connection to multiplex on rather than opening another.
        // Not over plain http, where there is no HTTP/2 here: libcurl would hold every transfer
        // until the host's first answer, so one first request that stalls held all the others.
        let pipewait = url.utf8.starts(with: "https:".utf8) ? 1 : 0
        return rangeSet == CURLE_OK && packfs_easy_setopt_str(handle, CURLOPT_URL, url) == CURLE_OK
            && packfs_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, ownHeaders ?? shared) == CURLE_OK
            && packfs_easy_setopt_long(handle, CURLOPT_PIPEWAIT, pipewait) == CURLE_OK
    }

    /// Makes the attempt end as a timeout with `reason` (the loop then removes the handle).
    func abandon(_ reason: String) {
        abandonment = reason
    }

    /// Moves the attempt's result out; the handle is ready for `prepare` again.
    func takeResult(_ code: CURLcode) -> AttemptResult {
        let code = abandonment == nil ? code : CURLE_OPERATION_TIMEDOUT
        var status = 0, connects = 0
        var redirect: UnsafeMutablePointer<CChar>?
        _ = packfs_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        _ = packfs_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        if (300..<400).contains(status) {
            _ = packfs_easy_getinfo_ptr(handle, CURLINFO_REDIRECT_URL, &redirect)
        }
        let message = code == CURLE_OK ? ""
            : abandonment ?? (errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code)))
        let result = AttemptResult(
            code: code, message: message, status: status, headers: headers, body: body,
            bodyTooLarge: bodyTooLarge, redirectURL: redirect.map { String(cString: $0) },
            newConnections: connects, isRange: isRange, refusedAddress: code == CURLE_OK ? nil : refusedAddress)
        body = Data()
        return result
    }

    /// Appends body bytes; returning less than `count` makes libcurl abort the transfer.
    fileprivate func receive(body bytes: UnsafeRawPointer, count: Int) -> Int {
        lastActivity = MonotonicClock.now()
        if body.count + count > maxBodyBytes {
            bodyTooLarge = true
            return 0
        }
        if body.isEmpty, let expected = headers.contentLength, expected > 0 {
            body.reserveCapacity(min(expected, maxBodyBytes))
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    fileprivate func receive(headerLine bytes: UnsafeRawPointer, count: Int) {
        lastActivity = MonotonicClock.now()
        headers.consume(line: UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// The socket for a connection to `address`, or CURL_SOCKET_BAD when the address rule
    /// refuses it (libcurl then tries the name's next address, if any).
    fileprivate func openSocket(to address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        var bytes = [UInt8](repeating: 0, count: 16)
        let length = Int(packfs_sockaddr_ip(address, &bytes))
        let ip = Array(bytes.prefix(length))
        let scope = AddressScope(address: ip)
        guard reachesAnyAddress || scope == .public else {
            if refusedAddress == nil { refusedAddress = (AddressScope.text(of: ip), scope) }
            return CURL_SOCKET_BAD
        }
        return packfs_open_socket(address)
    }

    fileprivate func sendsRequest() {
        requestSent = true
        lastActivity = MonotonicClock.now()
    }
}

// The callbacks libcurl calls on the loop thread. They never trap: a missing pointer aborts the
// transfer (returning 0), which surfaces as an ordinary CURLE_WRITE_ERROR.
private let receiveBody: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<EasyTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receive(body: UnsafeRawPointer(data), count: size * count)
}

private let receiveHeader: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<EasyTransfer>.fromOpaque(userdata).takeUnretainedValue()
    transfer.receive(headerLine: UnsafeRawPointer(data), count: size * count)
    return size * count
}

/// Called for every connection libcurl opens, with the address it resolved (docs/design.md §4).
private let socketOpener: packfs_opensocket_cb = { userdata, _, address in
    guard let userdata, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<EasyTransfer>.fromOpaque(userdata).takeUnretainedValue().openSocket(to: address)
}

/// Called once the connection is up (new or reused, TLS done), just before the request is sent.
private let requestGoesOut: packfs_prereq_cb = { userdata, _, _, _, _ in
    guard let userdata else { return CURL_PREREQFUNC_OK }
    Unmanaged<EasyTransfer>.fromOpaque(userdata).takeUnretainedValue().sendsRequest()
    return CURL_PREREQFUNC_OK
}

/// Request header lists. libcurl copies nothing from a list, so each lives as long as a request
/// that uses it.
enum RequestHeaders {
    static let acceptEncoding = "Accept-Encoding: gzip, deflate"

    /// The list every unconditional request shares, owned by the loop.
    static func shared() -> UnsafeMutablePointer<curl_slist>? {
        curl_slist_append(nil, acceptEncoding)
    }

    static func conditional(_ validators: HTTPValidators) -> UnsafeMutablePointer<curl_slist>? {
        validatorLines(validators, to: curl_slist_append(nil, acceptEncoding))
    }

    /// A range of the resource as stored, so identity: a compressed representation's offsets
    /// are not the file's.
    static func ranged(_ range: ByteRange, validators: HTTPValidators?) -> UnsafeMutablePointer<curl_slist>? {
        var list = curl_slist_append(nil, "Accept-Encoding: identity")
        if let etag = range.ifMatch, !etag.contains(where: \.isNewline) {
            list = curl_slist_append(list, "If-Match: \(etag)")
        }
        return validators.map { validatorLines($0, to: list) } ?? list
    }

    private static func validatorLines(_ validators: HTTPValidators, to start: UnsafeMutablePointer<curl_slist>?)
        -> UnsafeMutablePointer<curl_slist>?
    {
        var list = start
        // A stored value with a line break would inject headers; such a validator is dropped.
        if let etag = validators.etag, !etag.contains(where: \.isNewline) {
            list = curl_slist_append(list, "If-None-Match: \(etag)")
        }
        if let modified = validators.modified {
            list = curl_slist_append(list, "If-Modified-Since: \(HTTPDate.format(modified))")
        }
        return list
    }
}
