import Basics
import FoundationEssentials

/// What bytes look like, for an error saying what came instead: an image by its signature, text by
/// its first characters (escaped: a server's bytes reach users and logs), anything else by size.
public enum ContentDescription {
    /// Characters of text shown at most.
    static let excerptLength = 40
    /// Bytes looked at to tell text from binary.
    static let sniffLength = 512

    public static func of(_ content: Data) -> String {
        if content.isEmpty { return "an empty body" }
        if let image = ImageSignature.of(content) { return "a \(image.rawValue) image" }
        if Zlib.isGzip(content) { return "\(content.count) bytes of gzip data" }
        guard let text = text(content.prefix(sniffLength)) else { return "\(content.count) bytes of binary" }
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        return "\(textKind(trimmed)) \"\(excerpt(trimmed))\""
    }

    /// The bytes as text when they are UTF-8 (a character cut at the end allowed) without NUL or
    /// other control characters but tab and line breaks; nil when they look binary.
    private static func text(_ bytes: Data) -> String? {
        var bytes = bytes
        for _ in 0..<4 {
            if let text = String(validating: bytes, as: UTF8.self) {
                let control = text.unicodeScalars.contains { $0.value < 0x20 && !"\t\n\r".unicodeScalars.contains($0) }
                return control ? nil : text
            }
            guard !bytes.isEmpty else { return nil }
            bytes.removeLast()
        }
        return nil
    }

    private static func textKind(_ text: Substring) -> String {
        let head = text.prefix(256).lowercased()
        if head.hasPrefix("<!doctype html") || head.contains("<html") || head.contains("<body") { return "HTML text" }
        if head.hasPrefix("<") { return "XML text" }
        if head.hasPrefix("{") || head.hasPrefix("[") { return "JSON text" }
        return "text"
    }

    /// The first characters, quotes, backslashes and anything unprintable (controls, bidi
    /// overrides) escaped; "..." when cut.
    static func excerpt(_ text: Substring) -> String {
        var out = ""
        for character in text.prefix(excerptLength) {
            for scalar in character.unicodeScalars { out += escaped(scalar) }
        }
        return text.count > excerptLength ? out + "..." : out
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            let value = scalar.value
            let unprintable = value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F
            return unprintable ? "\\u{\(String(value, radix: 16))}" : String(scalar)
        }
    }
}

/// Image signatures: those MapLibre Native decodes, and GIF, which it does not but descriptions name.
enum ImageSignature: String {
    case png = "PNG"
    case jpeg = "JPEG"
    case webp = "WebP"
    case gif = "GIF"

    static func of(_ content: Data) -> ImageSignature? {
        if content.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if content.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if content.count >= 12, content.starts(with: Array("RIFF".utf8)), content.dropFirst(8).starts(with: Array("WEBP".utf8)) {
            return .webp
        }
        if content.starts(with: Array("GIF87a".utf8)) || content.starts(with: Array("GIF89a".utf8)) { return .gif }
        return nil
    }
}
