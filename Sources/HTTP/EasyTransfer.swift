import CCurl
import FoundationEssentials

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

/// One reusable easy handle per transfer slot, kept for the client's life so libcurl's caches stay warm.
///
/// The loop finds silent transfers by `lastActivity`: libcurl's low-speed check judges a moving average,
/// so a transfer that stops after a little data runs past it (docs/reliability.md, "Stalls, the fault
/// matrix, redirects").
final class EasyTransfer: EasyHandle {
    let slot: Int
    /// The conditional request's header list (nil when the shared list is used); freed per request.
    private var ownHeaders: UnsafeMutablePointer<curl_slist>?
    /// Whether the request went out (pre-request callback); only then is silence a stall, before it the
    /// connect timeout governs.
    private(set) var requestSent = false
    /// Why the loop gave up on the attempt (`abandon`); it then ends as a timeout.
    private var abandonment: String?
    private var isRange = false
    /// Whether the attempt may connect to an address that is not public (`AddressReach`).
    private var reachesAnyAddress = false
    /// The first connection of the attempt that the address rule refused.
    private var refusedAddress: (address: String, scope: AddressScope)?

    init(slot: Int, configuration: HTTPClientConfiguration) throws(HTTPError) {
        self.slot = slot
        try super.init(userAgent: configuration.userAgent, connectTimeout: configuration.connectTimeout,
                       caFile: configuration.caFile, maxBodyBytes: configuration.maxBodyBytes)
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check([
            packfs_easy_setopt_ptr(handle, CURLOPT_PRIVATE, me),
            packfs_easy_setopt_prereq(handle, CURLOPT_PREREQFUNCTION, requestGoesOut),
            packfs_easy_setopt_ptr(handle, CURLOPT_PREREQDATA, me),
            packfs_easy_setopt_opensocket(handle, CURLOPT_OPENSOCKETFUNCTION, socketOpener),
            packfs_easy_setopt_ptr(handle, CURLOPT_OPENSOCKETDATA, me),
            packfs_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)),
            // Bodies arrive as sent: Accept-Encoding is our own header and the body decoder keeps
            // the server's deflate stream. CURLOPT_ACCEPT_ENCODING stays unset.
            packfs_easy_setopt_long(handle, CURLOPT_HTTP_CONTENT_DECODING, 0),
            // No CURLOPT_LOW_SPEED_*: the loop times out silent transfers itself (see above).
            packfs_easy_setopt_long(handle, CURLOPT_VERBOSE, configuration.verbose ? 1 : 0),
        ])
    }

    deinit {
        // The handle (cleaned up by EasyHandle's deinit, after this) must not point at a freed list.
        _ = packfs_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, nil)
        curl_slist_free_all(ownHeaders)
    }

    /// Points the handle at the next request. `shared` serves unconditional requests; a conditional one
    /// gets its own list, freed at the next `prepare`.
    func prepare(url: String, validators: HTTPValidators?, range: ByteRange?, shared: UnsafeMutablePointer<curl_slist>?,
                 reachesAnyAddress: Bool) -> Bool
    {
        self.reachesAnyAddress = reachesAnyAddress
        refusedAddress = nil
        reset()
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
        // Wait to multiplex on HTTP/2 only over TLS: over plain http libcurl would hold every transfer
        // until the host's first answer, so one stalled first request would hold them all.
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
        return AttemptResult(
            code: code, message: code == CURLE_OK ? "" : abandonment ?? message(for: code), status: status,
            headers: headers, body: takeBody(), bodyTooLarge: bodyTooLarge,
            redirectURL: redirect.map { String(cString: $0) }, newConnections: connects, isRange: isRange,
            refusedAddress: code == CURLE_OK ? nil : refusedAddress)
    }

    /// The socket for `address`, or CURL_SOCKET_BAD when the address rule refuses it (libcurl then tries
    /// the name's next address).
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

/// Request header lists. libcurl copies nothing from a list, so each outlives the requests using it.
enum RequestHeaders {
    static let acceptEncoding = "Accept-Encoding: gzip, deflate"

    /// The list every unconditional request shares, owned by the loop.
    static func shared() -> UnsafeMutablePointer<curl_slist>? {
        curl_slist_append(nil, acceptEncoding)
    }

    static func conditional(_ validators: HTTPValidators) -> UnsafeMutablePointer<curl_slist>? {
        validatorLines(validators, to: curl_slist_append(nil, acceptEncoding))
    }

    /// A range asks for identity: a compressed representation's offsets are not the file's.
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
