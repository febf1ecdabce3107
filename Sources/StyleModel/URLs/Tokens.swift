/// MapLibre's `{token}` templates and its percent-encoding, byte for byte, because the stored keys
/// (glyph URLs, tile templates) must equal the ones a MapLibre app computes.
public enum Tokens {
    /// Replaces each `{name}` for which `lookup` answers; unknown tokens stay as written, and a
    /// `{` without its `}` is copied literally (MapLibre's `replaceTokens`).
    public static func replace(in template: String, _ lookup: (Substring) -> String?) -> String {
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
    /// (space included, as `%20`) becomes `%` and two lowercase hex digits. `extra` bytes are kept
    /// too (the mount's `file://` paths keep `/`, `{` and `}`).
    public static func percentEncode(_ text: String, keeping extra: Set<UInt8> = []) -> String {
        var out = ""
        for byte in text.utf8 {
            if isUnreserved(byte) || extra.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
            }
        }
        return out
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x7E
    }
}
