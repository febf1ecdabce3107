/// Table columns in terminal cells (CJK and emoji take two, a combining accent none). Long names are cut
/// with an ellipsis so later columns stay aligned; `--json` has them whole.
enum Column {
    /// `text` and spaces to `width` cells (at least one space after it).
    static func pad(_ text: String, _ width: Int) -> String {
        let used = cells(text)
        return text + String(repeating: " ", count: max(1, width - used))
    }

    /// `text` in `width` cells, the last one a space: cut to `width - 2` cells and "…" when longer.
    static func fit(_ text: String, _ width: Int) -> String {
        guard cells(text) >= width else { return pad(text, width) }
        var shown = "", used = 0
        for character in text {
            let size = cells(character)
            if used + size > width - 2 { break }
            shown.append(character)
            used += size
        }
        return pad(shown + "…", width)
    }

    static func cells(_ text: String) -> Int { text.reduce(0) { $0 + cells($1) } }

    /// A character's cells: its first scalar's (what follows it combines into it).
    static func cells(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return properties.isEmojiPresentation || isWide(scalar.value) ? 2 : 1
    }

    /// East Asian wide and fullwidth blocks (Unicode's EastAsianWidth W and F, by block).
    private static func isWide(_ value: UInt32) -> Bool {
        let blocks: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
        ]
        return blocks.contains { $0.contains(value) }
    }
}
