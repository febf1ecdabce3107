import PackStore

/// Glyph ranges: 256 ranges of 256 code points (0-255 ... 65280-65535) per font stack, as
/// `glyphs` template URLs with `{fontstack}` and `{range}` filled in.
enum Glyphs {
    /// The glyph ranges a pack fetches, ascending. Without ideographs, the 159 ranges that start at
    /// 0x1100, 0x3000, 0x3200-0x4C00, 0x4E00-0xA300, 0xAC00-0xD600 and 0xF900 are left out (MapLibre
    /// draws those glyphs locally); 97 remain.
    static func ranges(includeIdeographs: Bool) -> [ClosedRange<Int>] {
        stride(from: 0, to: 0x10000, by: 256)
            .filter { includeIdeographs || !isIdeographic(start: $0) }
            .map { $0...($0 + 255) }
    }

    static func isIdeographic(start: Int) -> Bool {
        start == 0x1100 || start == 0x3000 || start == 0xF900 || (0x3200...0x4C00).contains(start)
            || (0x4E00...0xA300).contains(start) || (0xAC00...0xD600).contains(start)
    }

    /// The URL of one range: `{fontstack}` is the names joined with `,` and percent-encoded
    /// (lowercase hex, space as `%20`), `{range}` is `start-end`; other tokens stay as written.
    static func url(template: String, fontStack: [String], range: ClosedRange<Int>) -> String {
        Tokens.replace(in: template) { token in
            switch token {
            case "fontstack": return Tokens.percentEncode(fontStack.joined(separator: ","))
            case "range": return "\(range.lowerBound)-\(range.upperBound)"
            default: return nil
            }
        }
    }

    /// Every glyph resource of every stack, stack by stack.
    static func resources(template: String, fontStacks: [[String]], includeIdeographs: Bool)
        -> [PlannedResource]
    {
        let ranges = ranges(includeIdeographs: includeIdeographs)
        return fontStacks.flatMap { stack in
            ranges.map {
                PlannedResource(url: url(template: template, fontStack: stack, range: $0), kind: .glyphs)
            }
        }
    }
}
