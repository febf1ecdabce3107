/// URL strings as MapLibre handles them: plain text split into scheme, authority, path and query
/// (never Foundation's `URL`: see the header in StyleModel.swift).
public enum URLString {
    /// The lowercased scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`, then `:`),
    /// or nil for a relative reference.
    /// Scans UTF-8 bytes, not Characters: it runs for every tile request, and the scheme is ASCII.
    public static func scheme(of url: String) -> String? {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), let first = bytes.first, isLetter(first)
        else { return nil }
        let name = bytes[..<colon]
        let allowed = name.allSatisfy { isLetter($0) || isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
        return allowed ? String(url[..<colon]).lowercased() : nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// True for URLs PackFS may store and (after `mapbox://` expansion) fetch.
    public static func hasFetchableScheme(_ url: String) -> Bool {
        guard let scheme = scheme(of: url) else { return false }
        return scheme == "http" || scheme == "https" || scheme == "mapbox"
    }

    /// The authority (`host[:port]`, with any user info) of `scheme://authority/...`, or nil.
    public static func authority(of url: String) -> Substring? {
        guard scheme(of: url) != nil else { return nil }
        let bytes = url.utf8
        var start: String.Index?
        var index = bytes.startIndex
        while start == nil, let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let rest = bytes[bytes.index(after: colon)...]
            if rest.starts(with: "//".utf8) { start = bytes.index(colon, offsetBy: 3) }
            index = bytes.index(after: colon)
        }
        guard let start else { return nil }
        let end = bytes[start...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? bytes.endIndex
        return url[start..<end]
    }

    /// The lowercased host of an absolute URL, without user info, port or IPv6 brackets.
    public static func host(of url: String) -> String? {
        guard var authority = authority(of: url) else { return nil }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return authority[authority.index(after: authority.startIndex)..<close].lowercased()
        }
        return authority.split(separator: ":", omittingEmptySubsequences: false).first?.lowercased()
    }

    /// Splits at the query the way MapLibre's `URL` does: `head` ends where the query (or, without
    /// one, the fragment) begins; `query` runs from `?` up to any `#`. The fragment is dropped.
    public static func splitQuery(_ url: String) -> (head: Substring, query: Substring) {
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        guard let mark = url.firstIndex(of: "?"), mark < hash else {
            return (url[..<hash], url[hash..<hash])
        }
        return (url[..<mark], url[mark..<hash])
    }

    /// Resolves `reference` against the http(s) URL `base` (RFC 3986 section 5.2); an absolute one
    /// comes back unchanged. nil for a relative reference against another base (`mapbox://`).
    public static func resolve(_ reference: String, against base: String) -> String? {
        if scheme(of: reference) != nil { return reference }
        guard let baseScheme = scheme(of: base), baseScheme == "http" || baseScheme == "https",
            let authority = authority(of: base)
        else { return nil }
        if reference.hasPrefix("//") { return baseScheme + ":" + reference }
        let origin = baseScheme + "://" + authority
        let basePath = String(splitQuery(base).head.dropFirst(origin.count))
        let (refPath, refTail) = splitPath(reference)
        if refPath.isEmpty {
            // Only a query or a fragment: keep the base path (and its query if none is given).
            let baseQuery = refTail.hasPrefix("?") ? "" : String(splitQuery(base).query)
            return origin + basePath + baseQuery + refTail
        }
        let merged: String
        if refPath.hasPrefix("/") {
            merged = refPath
        } else {
            let directory = basePath[
                ..<(basePath.lastIndex(of: "/").map(basePath.index(after:)) ?? basePath.startIndex)]
            merged = (directory.isEmpty ? "/" : String(directory)) + refPath
        }
        return origin + removeDotSegments(merged) + refTail
    }

    /// (path, "?query#fragment") of a relative reference.
    private static func splitPath(_ reference: String) -> (String, String) {
        let end = reference.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? reference.endIndex
        return (String(reference[..<end]), String(reference[end...]))
    }

    /// RFC 3986 section 5.2.4 for an absolute path (`/a/b/../c` -> `/a/c`).
    public static func removeDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}
