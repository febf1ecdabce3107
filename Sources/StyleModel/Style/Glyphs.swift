import Basics
import PackStore

/// A style's `glyphs` template: per font stack, 256 ranges of 256 code points (0-255 ... 65280-65535), a URL each.
public struct GlyphTemplate: Equatable, Sendable {
    /// Resolved against the style; other tokens than the two stay as written.
    public let template: String

    /// The template a style's `glyphs` value names; nil when it sets none (or an empty one).
    init?(_ value: JSONValue?, styleURL: String) throws {
        switch value {
        case nil, .null?: return nil
        case .string(let template)?:
            guard !template.isEmpty else { return nil }
            self.template = try References.resolve(template, in: styleURL, field: "glyphs")
        default:
            throw StyleError.invalidField(url: styleURL, field: "glyphs", reason: "must be a URL template")
        }
    }

    /// The glyph ranges a pack fetches, ascending. Without ideographs, the 159 ranges that start at
    /// 0x1100, 0x3000, 0x3200-0x4C00, 0x4E00-0xA300, 0xAC00-0xD600 and 0xF900 are left out (MapLibre
    /// draws those glyphs locally); 97 remain.
    public static func ranges(includeIdeographs: Bool) -> [ClosedRange<Int>] {
        stride(from: 0, to: 0x10000, by: 256)
            .filter { includeIdeographs || !isIdeographic(start: $0) }
            .map { $0...($0 + 255) }
    }

    static func isIdeographic(start: Int) -> Bool {
        start == 0x1100 || start == 0x3000 || start == 0xF900 || (0x3200...0x4C00).contains(start)
            || (0x4E00...0xA300).contains(start) || (0xAC00...0xD600).contains(start)
    }

    /// The URL of one range: `{fontstack}` is the stack's name (`FontStacks.name`) percent-encoded
    /// (lowercase hex, space as `%20`), `{range}` is `start-end`.
    public func url(fontStack: [String], range: ClosedRange<Int>) -> String {
        Tokens.replace(in: template) { token in
            switch token {
            case "fontstack": return Tokens.percentEncode(FontStacks.name(of: fontStack))
            case "range": return "\(range.lowerBound)-\(range.upperBound)"
            default: return nil
            }
        }
    }

    /// The range's file in a pack's `glyphs/<stack>/` directory.
    public static func fileName(range: ClosedRange<Int>) -> String {
        "\(range.lowerBound)-\(range.upperBound).pbf"
    }
}
