import Basics
import CCurl
import FoundationEssentials

/// The response header fields the client uses, from libcurl's header callback; others are skipped
/// without building strings (this runs for every header line, on the loop thread).
struct ResponseHeaderFields: Equatable {
    var contentEncoding: String?
    var etag: String?
    var lastModified: String?
    var cacheControl: String?
    var expires: String?
    var retryAfter: String?
    var contentLength: Int?

    private enum Field {
        case contentEncoding, etag, lastModified, cacheControl, expires, retryAfter, contentLength
    }

    /// Takes one raw header line (CRLF included). A status line starts a new header block, so the
    /// fields of an interim 1xx response never leak into the final one.
    mutating func consume(line: UnsafeBufferPointer<UInt8>) {
        if line.starts(with: "HTTP/".utf8) {
            self = ResponseHeaderFields()
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
              let field = Self.field(named: UnsafeBufferPointer(rebasing: line[..<colon]))
        else { return }
        let value = Self.trimmed(UnsafeBufferPointer(rebasing: line[(colon + 1)...]))
        store(String(decoding: value, as: UTF8.self), in: field)
    }

    private mutating func store(_ value: String, in field: Field) {
        switch field {
        case .contentEncoding: contentEncoding = value.lowercased()
        case .etag: etag = value
        case .lastModified: lastModified = value
        // Repeated Cache-Control lines form one list (RFC 9110 5.3).
        case .cacheControl: cacheControl = cacheControl.map { "\($0), \(value)" } ?? value
        case .expires: expires = value
        case .retryAfter: retryAfter = value
        case .contentLength: contentLength = Int(value)
        }
    }

    private static func field(named name: UnsafeBufferPointer<UInt8>) -> Field? {
        switch name.count {
        case 4: return equalsLowercased(name, "etag") ? .etag : nil
        case 7: return equalsLowercased(name, "expires") ? .expires : nil
        case 11: return equalsLowercased(name, "retry-after") ? .retryAfter : nil
        case 13:
            if equalsLowercased(name, "cache-control") { return .cacheControl }
            return equalsLowercased(name, "last-modified") ? .lastModified : nil
        case 14: return equalsLowercased(name, "content-length") ? .contentLength : nil
        case 16: return equalsLowercased(name, "content-encoding") ? .contentEncoding : nil
        default: return nil
        }
    }

    private static func equalsLowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount)
        for (byte, want) in zip(bytes, expected) {
            let folded = (byte >= 65 && byte <= 90) ? byte + 32 : byte
            if folded != want { return false }
        }
        return true
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 13 || b == 10 }
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}

extension ResponseHeaderFields {
    /// The cache facts to store. `max-age` wins over `s-maxage` (this is a private cache; the
    /// shared-cache lifetime is only a fallback), and both win over `Expires` (RFC 9111 5.3).
    func cacheHeaders(now: Int64) -> CacheHeaders {
        let directives = CacheControl(cacheControl ?? "")
        var expiry: Int64?
        if let age = directives.maxAge ?? directives.sharedMaxAge {
            // Saturating: a server's max-age of 2^63 - 1 must not overflow into a trap.
            expiry = now.addingReportingOverflow(age).overflow ? Int64.max : now + age
        } else if let expires {
            // An unparseable Expires ("0", "-1") means "already expired" (RFC 9111 5.3).
            expiry = HTTPDate.parse(expires) ?? now
        }
        return CacheHeaders(
            expires: expiry,
            modified: lastModified.flatMap(HTTPDate.parse),
            etag: etag,
            mustRevalidate: directives.mustRevalidate || directives.noCache)
    }

    /// Retry-After as a delay in seconds: delta-seconds or an HTTP date (RFC 9110 10.2.3).
    func retryAfterDelay(now: Int64) -> Double? {
        guard let value = retryAfter else { return nil }
        if let seconds = Int64(value) { return Double(max(0, seconds)) }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, Double(date) - Double(now))
    }
}

/// The Cache-Control directives PackFS stores.
struct CacheControl {
    var maxAge: Int64?
    var sharedMaxAge: Int64?
    var mustRevalidate = false
    var noCache = false

    init(_ header: String) {
        for part in header.split(separator: ",") {
            let directive = part.trimmedSpaces.lowercased()
            let pieces = directive.split(separator: "=", maxSplits: 1)
            let name = pieces.first.map(String.init) ?? ""
            let argument = pieces.count > 1 ? Int64(pieces[1].trimming { $0 == "\"" }) : nil
            switch name {
            case "max-age": maxAge = argument.map { max(0, $0) }
            case "s-maxage": sharedMaxAge = argument.map { max(0, $0) }
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "no-cache": noCache = true
            default: break
            }
        }
    }
}
