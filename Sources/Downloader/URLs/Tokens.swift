import PackStore
/// MapLibre's `{token}` templates and its percent-encoding, byte for byte, because the stored keys
/// (glyph URLs, tile templates) must equal the ones a MapLibre app computes.
enum Tokens {
    /// Replaces each `{name}` for which `lookup` answers; unknown tokens stay as written, and a
    /// `{` without its `}` is copied literally (MapLibre's `replaceTokens`).
    static func replace(in template: String, _ lookup: (Substring) -> String?) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            let stop = rest[afterOpen...].firstIndex(where: { $0 == "{" || $0 == "}" })
            guard let close = stop, rest[close] == "}" else {
                // No closing brace before the next `{` (or the end): copy up to there.
                let end = stop ?? rest.endIndex
                result += rest[open..<end]
                rest = rest[end...]
                continue
            }
            let name = rest[afterOpen..<close]
            result += lookup(name) ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// MapLibre's `percentEncode` (`PercentEncoding.mapLibre`, shared with the mount).
    static func percentEncode(_ text: String) -> String { PercentEncoding.mapLibre(text) }

    private static func hexDigit(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? 0x30 + nibble : 0x57 + nibble))
    }
}
