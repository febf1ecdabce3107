import Foundation
import PackStore

/// URL text as the style and the store spell it. Plain string work, never Foundation's `URL`,
/// which rejects templates like `{z}/{x}/{y}.pbf`: stored keys are the URLs as written, resolved.
enum URLText {
    /// True when `url` starts with a scheme (`http:`, `mapbox:`...).
    static func hasScheme(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isLetter else { return false }
        return url[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// `reference` resolved against the document at `base` (RFC 3986 5.2, enough for styles:
    /// absolute, network-path, absolute-path and relative-path references).
    static func resolve(_ reference: String, against base: String) -> String {
        if hasScheme(reference) { return reference }
        guard let schemeEnd = base.range(of: "://") else { return reference }
        let scheme = base[..<schemeEnd.lowerBound]
        if reference.hasPrefix("//") { return scheme + ":" + reference }
        let rest = base[schemeEnd.upperBound...]
        let pathStart = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let origin = String(base[..<pathStart])
        if reference.hasPrefix("/") { return origin + reference }
        let path = rest[pathStart...].prefix(while: { $0 != "?" && $0 != "#" })
        let directory = path[..<(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)]
        return origin + removingDotSegments((directory.isEmpty ? "/" : String(directory)) + reference)
    }

    private static func removingDotSegments(_ path: String) -> String {
        let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? path.endIndex
        var output: [Substring] = []
        for segment in path[..<end].dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if segment == ".." { _ = output.popLast() } else if segment != "." { output.append(segment) }
        }
        return "/" + output.joined(separator: "/") + path[end...]
    }

    /// `url` with `suffix` put before its query (sprite files: base + `@2x.json`).
    static func inserting(_ suffix: String, into url: String) -> String {
        let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
        return url[..<end] + suffix + url[end...]
    }

    /// MapLibre's percent-encoding (`PercentEncoding.mapLibre`, shared with the downloader).
    static func percentEncode(_ text: String, keeping extra: Set<UInt8> = []) -> String {
        PercentEncoding.mapLibre(text, keeping: extra)
    }

    /// A `file://` URL for an absolute path, each byte MapLibre's file source would misread
    /// percent-encoded (it decodes the path before opening it); `{tokens}` stay as written.
    static func fileURL(path: String) -> String {
        "file://" + percentEncode(path, keeping: Set("/{}".utf8))
    }
}

/// A glyphs template (`.../{fontstack}/{range}.pbf`) both ways: the URL of a stack's range, and
/// the stack and range a stored URL names.
struct GlyphTemplate: Sendable {
    let template: String

    func url(fontStack: String, range: String) -> String {
        template.replacingOccurrences(of: "{fontstack}", with: URLText.percentEncode(fontStack))
            .replacingOccurrences(of: "{range}", with: range)
    }

    /// (decoded stack, `start-end`) of a glyph URL made from this template, or nil.
    func parse(_ url: String) -> (fontStack: String, range: String)? {
        guard let stackToken = template.range(of: "{fontstack}"), let rangeToken = template.range(of: "{range}"),
            stackToken.upperBound <= rangeToken.lowerBound
        else { return nil }
        let prefix = template[..<stackToken.lowerBound]
        let middle = template[stackToken.upperBound..<rangeToken.lowerBound]
        let suffix = template[rangeToken.upperBound...]
        guard url.hasPrefix(prefix), url.hasSuffix(suffix), url.count >= prefix.count + suffix.count else { return nil }
        let inner = url.dropFirst(prefix.count).dropLast(suffix.count)
        guard !middle.isEmpty, let cut = inner.range(of: middle, options: .backwards) else { return nil }
        let range = String(inner[cut.upperBound...])
        guard let stack = String(inner[..<cut.lowerBound]).removingPercentEncoding else { return nil }
        return (stack, range)
    }
}
