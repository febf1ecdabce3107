import FoundationEssentials

/// Tells, from the bytes written so far, whether a region file's text is decided: one complete JSON object, or text no
/// further bytes can make into one (see `PackFilesystem+RegionFiles.swift`). It matches brackets and strings only:
/// other mistakes are the parser's to name; it only must not call decided a text that more bytes could still change.
struct RegionTextScan: Equatable {
    enum State: Equatable {
        /// Not yet one complete object: wait for more bytes.
        case open
        /// One complete object, possibly followed by whitespace.
        case complete
        /// More bytes cannot help (not an object, a mismatched bracket, text after the object).
        case malformed
    }

    private(set) var state = State.open
    /// Bytes scanned so far; a change before this point needs a fresh scan.
    private(set) var position = 0
    /// The closing bracket each open container expects, innermost last.
    private var closers: [UInt8] = []
    private var started = false
    private var inString = false
    private var escaped = false

    /// Scans `text` from `position` on; `text` keeps the bytes already scanned, and `written` holds
    /// the latest write's. A zero byte in a hole (pwrite past the end) stops the scan until a write
    /// fills it; a zero byte a write put there is junk, so the text is malformed.
    mutating func advance(over text: Data, written: Range<Int> = 0..<0) {
        var index = text.startIndex + position
        while index < text.endIndex, state != .malformed {
            let byte = text[index]
            if byte == 0 {
                if written.contains(index - text.startIndex) { state = .malformed }
                break
            }
            step(byte)
            index += 1
        }
        position = index - text.startIndex
    }

    private mutating func step(_ byte: UInt8) {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return
        }
        if Self.isWhitespace(byte) || (!started && Self.isByteOrderMark(byte)) { return }
        switch (started, byte) {
        case (false, UInt8(ascii: "{")):
            started = true
            closers = [UInt8(ascii: "}")]
        case (false, _):
            state = .malformed
        case (true, _) where state == .complete:
            state = .malformed
        case (true, UInt8(ascii: "\"")):
            inString = true
        case (true, UInt8(ascii: "{")):
            closers.append(UInt8(ascii: "}"))
        case (true, UInt8(ascii: "[")):
            closers.append(UInt8(ascii: "]"))
        case (true, UInt8(ascii: "}")), (true, UInt8(ascii: "]")):
            guard closers.popLast() == byte else { state = .malformed; return }
            if closers.isEmpty { state = .complete }
        default:
            break
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The bytes of UTF-8's byte order mark, which some editors put first: skipped before the object.
    static func isByteOrderMark(_ byte: UInt8) -> Bool { byte == 0xEF || byte == 0xBB || byte == 0xBF }
}
