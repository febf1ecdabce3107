import Basics
import CCurl
import FoundationEssentials

/// One libcurl easy handle as both clients set it up (http and https only, no redirect followed),
/// and the body and header buffers its callbacks fill (past `maxBodyBytes` aborts). The callbacks
/// reach it unretained through userdata: its owner keeps it as long as the handle exists.
class EasyHandle {
    let handle: UnsafeMutableRawPointer
    private let maxBodyBytes: Int
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private(set) var body = Data()
    private(set) var headers = ResponseHeaderFields()
    private(set) var bodyTooLarge = false
    /// Monotonic nanoseconds of the attempt's last sign of life: its start, its request going
    /// out, a header line or body bytes arriving.
    var lastActivity: UInt64 = 0

    init(userAgent: String, connectTimeout: Double, caFile: String?, maxBodyBytes: Int) throws(HTTPError) {
        guard let handle = curl_easy_init() else { throw .setup("curl_easy_init failed") }
        self.handle = handle
        self.maxBodyBytes = maxBodyBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check([
            packfs_easy_setopt_write(handle, CURLOPT_WRITEFUNCTION, receiveBody),
            packfs_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, me),
            packfs_easy_setopt_write(handle, CURLOPT_HEADERFUNCTION, receiveHeader),
            packfs_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, me),
            packfs_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer),
            packfs_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            // Only http and https, for the request and (were it ever on) for redirects.
            packfs_easy_setopt_str(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            packfs_easy_setopt_str(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
            packfs_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            packfs_easy_setopt_str(handle, CURLOPT_USERAGENT, userAgent),
            packfs_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000)),
            caFile.map { packfs_easy_setopt_str(handle, CURLOPT_CAINFO, $0) } ?? CURLE_OK,
        ])
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Throws the first failure among the results of setting options.
    func check(_ codes: [CURLcode]) throws(HTTPError) {
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw .setup("curl_easy_setopt: \(String(cString: curl_easy_strerror(failed)))")
        }
    }

    /// Empties the buffers for the next request.
    func reset() {
        body = Data()
        headers = ResponseHeaderFields()
        bodyTooLarge = false
        errorBuffer[0] = 0
        lastActivity = MonotonicClock.now()
    }

    /// Moves the body out.
    func takeBody() -> Data {
        defer { body = Data() }
        return body
    }

    /// Why the request ended with `code`: libcurl's error buffer, else its words for the code.
    func message(for code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    /// Appends body bytes; returning less than `count` makes libcurl abort the transfer.
    fileprivate func receive(body bytes: UnsafeRawPointer, count: Int) -> Int {
        lastActivity = MonotonicClock.now()
        guard count <= maxBodyBytes - body.count else {
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
}

// The callbacks libcurl calls while a transfer runs. They never trap: a missing pointer aborts
// the transfer (returning 0), which surfaces as an ordinary CURLE_WRITE_ERROR.
private let receiveBody: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let easy = Unmanaged<EasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    return easy.receive(body: UnsafeRawPointer(data), count: size * count)
}

private let receiveHeader: packfs_write_cb = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let easy = Unmanaged<EasyHandle>.fromOpaque(userdata).takeUnretainedValue()
    easy.receive(headerLine: UnsafeRawPointer(data), count: size * count)
    return size * count
}
