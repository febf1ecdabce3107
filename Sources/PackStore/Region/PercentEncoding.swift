/// MapLibre's `percentEncode`: ASCII letters, digits and `-_.~` stay; every other UTF-8 byte
/// (space included, as `%20`) becomes `%` and two lowercase hex digits. Glyph keys are URLs built
/// with it, so the downloader (storing) and the mount (finding) must share this one rule.
public enum PercentEncoding {
    /// `extra` bytes are kept too (the mount's `file://` paths keep `/`, `{` and `}`).
    public static func mapLibre(_ text: String, keeping extra: Set<UInt8> = []) -> String {
        var out = ""
        for byte in text.utf8 {
            let letterOrDigit = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if letterOrDigit || "-_.~".utf8.contains(byte) || extra.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
            }
        }
        return out
    }
}
