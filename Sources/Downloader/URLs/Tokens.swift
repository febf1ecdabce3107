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

    /// MapLibre's `percentEncode`: ASCII letters, digits and `-_.~` stay; every other UTF-8 byte
    /// (space included, as `%20`) becomes `%` and two lowercase hex digits.
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let isUnreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F || byte == 0x2E
                || byte == 0x7E
            if isUnreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + hexDigit(byte >> 4) + hexDigit(byte & 0x0F)
            }
        }
        return out
    }

    private static func hexDigit(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? 0x30 + nibble : 0x57 + nibble))
    }
}
