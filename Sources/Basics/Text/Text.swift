/// The few text operations PackFS took from full Foundation, written over the standard library
/// (FoundationEssentials has none of them; full Foundation brings ICU).
extension StringProtocol {
    /// Without leading and trailing white space and line ends.
    public var trimmed: String { trimming { $0.isWhitespace } }

    /// Without leading and trailing spaces and tabs (line ends kept).
    public var trimmedSpaces: String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// Without leading and trailing characters that `drop` names.
    public func trimming(_ drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }

    /// `%XX` escapes decoded; nil for a malformed escape or non-UTF-8 (as `removingPercentEncoding`).
    public var percentDecoded: String? {
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexDigitValue), let low = iterator.next().flatMap(hexDigitValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// The value of one hex digit, either case; nil for any other byte.
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// A slash-separated path's parts, as Foundation's NSString path methods gave them.
public enum PathText {
    /// The last component ("b.pbf" of "/a/b.pbf"), trailing slashes ignored.
    public static func lastComponent(_ path: String) -> String {
        guard let end = path.lastIndex(where: { $0 != "/" }) else { return path.isEmpty ? "" : "/" }
        let trimmed = path[...end]
        return String(trimmed.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }

    /// The last component's extension without its dot ("pbf"); "" when it has none or the only
    /// dot starts the name (".hidden").
    public static func fileExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The last component without its extension ("b" of "b.pbf").
    public static func stem(_ path: String) -> String {
        let name = lastComponent(path)
        let suffix = fileExtension(name)
        return suffix.isEmpty ? name : String(name.dropLast(suffix.count + 1))
    }
}
