/// The one place that knows what a secret looks like (docs/design.md §2, "Secrets"): in text that leaves
/// the process, a URL's user-info, secret query values and literal secrets (`--access-token`, AWS keys)
/// become `***`. Stored URLs are database keys and stay as they are.
public enum Redaction {
    /// What a secret is replaced with.
    public static let mask = "***"

    /// Query parameter names whose values are secrets, lowercase (compared case-insensitively);
    /// every `x-amz-*` parameter is one too.
    static let secretNames: Set<String> = [
        "access_token", "token", "key", "api_key", "apikey", "signature", "sig", "policy", "key-pair-id",
    ]
    /// Header names whose whole value is a secret (`Authorization: AWS4-HMAC-SHA256 ...`).
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    private static let literals = LockedState<[String]>([])

    /// Adds a literal secret that no text may show from now on. Values under 4 bytes are ignored:
    /// hiding them would hide ordinary words, and nothing that short is a credential.
    public static func hide(literal secret: String) {
        guard secret.utf8.count >= 4 else { return }
        literals.withLock { if !$0.contains(secret) { $0.append(secret) } }
    }

    /// One URL with its user-info and secret query values shown as `***`.
    public static func url(_ url: String) -> String { text(url) }

    /// Free text with every URL redacted as by `url(_:)`, secret `name=value` pairs, secret headers
    /// and literal secrets masked. Text with nothing secret comes back unchanged.
    public static func text(_ text: String) -> String {
        var result = text
        for secret in literals.withLock({ $0 }) where result.contains(secret) {
            result = result.replacing(secret, with: mask)
        }
        guard result.utf8.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "@")
            || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "%") })
        else { return result }
        var scanner = RedactionScanner(Array(result.utf8))
        return scanner.redacted() ?? result
    }
}

/// The byte scan behind `Redaction.text`: copies the text, masking what it finds at each
/// position where a name or a URL's authority may start.
struct RedactionScanner {
    private let bytes: [UInt8]
    private var output: [UInt8] = []
    private var index = 0
    private var changed = false

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        output.reserveCapacity(bytes.count)
    }

    /// The redacted text; nil when nothing was masked.
    mutating func redacted() -> String? {
        while index < bytes.count {
            if startsName(at: index), maskValue() { continue }
            if startsAuthority(at: index), maskUserInfo() { continue }
            output.append(bytes[index])
            index += 1
        }
        return changed ? String(decoding: output, as: UTF8.self) : nil
    }

    /// At `index`, a name (`access_token=...`, `X-Amz-Signature%3D...`, `Authorization: ...`)
    /// whose value is a secret: copies the name and separator, writes the mask, skips the value.
    private mutating func maskValue() -> Bool {
        let nameEnd = nameEnd(from: index)
        // Only a name followed by a separator is decoded: most words are not.
        guard nameEnd > index, equalsLength(at: nameEnd) != nil || (nameEnd < bytes.count && bytes[nameEnd] == UInt8(ascii: ":")),
            let name = String(decoding: bytes[index..<nameEnd], as: UTF8.self).percentDecoded?.lowercased()
        else { return false }
        let separator: Int
        let valueEnd: Int
        if let length = equalsLength(at: nameEnd), Redaction.secretNames.contains(name) || name.hasPrefix("x-amz-") {
            separator = length
            valueEnd = queryValueEnd(from: nameEnd + length)
        } else if nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: ":"),
            Redaction.secretHeaders.contains(name) || name.hasPrefix("x-amz-")
        {
            separator = 1
            valueEnd = headerValueEnd(from: nameEnd + 1)
        } else {
            return false
        }
        guard valueEnd > nameEnd + separator else { return false }
        output.append(contentsOf: bytes[index..<(nameEnd + separator)])
        if separator == 1, bytes[nameEnd] == UInt8(ascii: ":") { output.append(UInt8(ascii: " ")) }
        output.append(contentsOf: Redaction.mask.utf8)
        index = valueEnd
        changed = true
        return true
    }

    /// At `index` (pointing at `://`): a user-info before the authority's last `@` is masked.
    private mutating func maskUserInfo() -> Bool {
        let start = index + 3
        var end = start
        var at: Int?
        while end < bytes.count, !Self.endsAuthority(bytes[end]) {
            if bytes[end] == UInt8(ascii: "@") { at = end }
            end += 1
        }
        guard let at, at > start else { return false }
        output.append(contentsOf: "://\(Redaction.mask)".utf8)
        index = at
        changed = true
        return true
    }

    /// A name starts where the byte before cannot continue one (or an encoded `?` or `&` is).
    private func startsName(at position: Int) -> Bool {
        guard position < bytes.count, Self.isNameByte(bytes[position]), bytes[position] != UInt8(ascii: "%") else {
            return false
        }
        guard position > 0 else { return true }
        if position >= 3, isEscape(0x33, 0x46, at: position - 3) || isEscape(0x32, 0x36, at: position - 3) { return true }
        return !Self.isNameByte(bytes[position - 1])
    }

    private func nameEnd(from start: Int) -> Int {
        var end = start
        while end < bytes.count, Self.isNameByte(bytes[end]), equalsLength(at: end) == nil { end += 1 }
        return end
    }

    /// `=` is 1 byte, an encoded `%3D` 3; nil for anything else.
    private func equalsLength(at position: Int) -> Int? {
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "=") { return 1 }
        return isEscape(0x33, 0x44, at: position) ? 3 : nil
    }

    /// A query value ends at the next parameter, the fragment, or the end of the URL's text
    /// (an encoded `&` or `#` too: a URL inside another's query).
    private func queryValueEnd(from start: Int) -> Int {
        var end = start
        while end < bytes.count, !Self.endsValue(bytes[end]), !isEscape(0x32, 0x36, at: end), !isEscape(0x32, 0x33, at: end) {
            end += 1
        }
        return end
    }

    /// A header's value runs to the end of its line or of the quoted text holding it.
    private func headerValueEnd(from start: Int) -> Int {
        var begin = start
        while begin < bytes.count, bytes[begin] == UInt8(ascii: " ") { begin += 1 }
        var end = begin
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r"), bytes[end] != UInt8(ascii: "\"") {
            end += 1
        }
        return end == begin ? start : end
    }

    /// `://` at `position`.
    private func startsAuthority(at position: Int) -> Bool {
        position + 2 < bytes.count && bytes[position] == UInt8(ascii: ":") && bytes[position + 1] == UInt8(ascii: "/")
            && bytes[position + 2] == UInt8(ascii: "/")
    }

    /// The escape `%` `first` `second` at `position` (ASCII codes of upper-case hex digits; the
    /// text's may be lower-case). Byte codes, not strings: this runs at every byte of a text.
    private func isEscape(_ first: UInt8, _ second: UInt8, at position: Int) -> Bool {
        position + 2 < bytes.count && bytes[position] == UInt8(ascii: "%") && bytes[position + 1] == first
            && (bytes[position + 2] == second || bytes[position + 2] == second + 32)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool { classes[Int(byte)] & nameByte != 0 }

    /// Bytes no query value (as a URL or a message writes it) holds.
    private static func endsValue(_ byte: UInt8) -> Bool { classes[Int(byte)] & valueEnd != 0 }

    private static func endsAuthority(_ byte: UInt8) -> Bool { classes[Int(byte)] & authorityEnd != 0 }

    private static let nameByte: UInt8 = 1
    private static let valueEnd: UInt8 = 2
    private static let authorityEnd: UInt8 = 4

    /// Each byte's classes, looked up once per byte of a text rather than tested case by case.
    private static let classes: [UInt8] = (0...255).map { (code: Int) -> UInt8 in
        let byte = UInt8(code)
        var flags: UInt8 = 0
        if Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.%".utf8).contains(byte) { flags |= nameByte }
        let control = byte <= 0x20 || byte == 0x7F
        if control || Array("&#,;)]}\"'<>`\\".utf8).contains(byte) { flags |= valueEnd }
        if control || Array("/?#\"'<>`\\".utf8).contains(byte) { flags |= authorityEnd }
        return flags
    }
}
