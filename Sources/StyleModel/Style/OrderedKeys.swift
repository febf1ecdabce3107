import Basics
import FoundationEssentials
import PackStore

/// The member names of one object of a JSON document, in document order.
///
/// `JSONValue` (Foundation's JSONSerialization underneath) forgets key order, but the order of a
/// style's `sources` is the order MapLibre downloads and the order that picks the mount's primary
/// source. This scanner reads only what it needs: the names of the object found at `member` of
/// the top-level object, skipping every value. Run it on a document that already parsed as JSON.
struct OrderedKeys {
    private let bytes: [UInt8]
    private var index = 0

    /// Names of the object at top-level key `member` as written, first occurrence first (names
    /// are told apart by their bytes: NFC and NFD spellings of one name are two names here);
    /// nil when the document has no such object.
    static func of(member: String, in data: Data) -> [String]? {
        var scanner = OrderedKeys(bytes: Array(data))
        return scanner.memberObjectKeys(member)
    }

    /// Every key of `object` (the parsed value of top-level `member` of `data`) in document
    /// order; a key the scan missed still comes, after the others, sorted, so none is lost.
    /// `object`'s keys are Swift strings, compared by canonical equivalence: spellings of one
    /// name that differ only in normalisation come once (`Style` refuses such a document first).
    static func keys(of object: [String: JSONValue], member: String, in data: Data) -> [String] {
        // Sets, not `contains` on the arrays: a style may name a hundred thousand sources.
        var order: [String] = []
        var listed = Set<String>()
        for key in of(member: member, in: data) ?? [] where object[key] != nil && listed.insert(key).inserted {
            order.append(key)
        }
        order += object.keys.filter { !listed.contains($0) }.sorted()
        return order
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // UTF-8 byte order mark
    }

    private mutating func memberObjectKeys(_ member: String) -> [String]? {
        var found: [String]?
        _ = forEachMember { scanner, key in
            if key == member, found == nil, scanner.peek() == UInt8(ascii: "{") {
                var keys: [String] = []
                var spellings = Set<[UInt8]>()
                let complete = scanner.forEachMember { scanner, name in
                    if spellings.insert(Array(name.utf8)).inserted { keys.append(name) }
                    return scanner.skipValue()
                }
                found = complete ? keys : nil
                return complete
            }
            return scanner.skipValue()
        }
        return found
    }

    /// Calls `body` with each member name, positioned at the member's value, which `body` must
    /// consume. False when the text is not a well-formed object.
    private mutating func forEachMember(_ body: (inout OrderedKeys, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard peek() == UInt8(ascii: "\""), let name = readString(), consume(UInt8(ascii: ":")),
                body(&self, name)
            else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// Skips one value of any kind. Strings are skipped whole, so brackets inside them are inert.
    private mutating func skipValue() -> Bool {
        guard let first = peek() else { return false }
        if first == UInt8(ascii: "\"") { return readString() != nil }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            while index < bytes.count, !Self.delimiters.contains(bytes[index]) { index += 1 }
            return true
        }
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard readString() != nil else { return false }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
            index += 1
            if depth == 0 { return true }
        }
        return false
    }

    private static let delimiters: Set<UInt8> = Set(",}] \t\r\n".utf8)

    /// Reads a string literal at the current position, decoding its escapes.
    private mutating func readString() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let decoded = readEscape() else { return nil }
                out += decoded
            default: out.append(byte)
            }
        }
        return nil
    }

    private mutating func readEscape() -> [UInt8]? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "b"): return [0x08]
        case UInt8(ascii: "f"): return [0x0C]
        case UInt8(ascii: "n"): return [0x0A]
        case UInt8(ascii: "r"): return [0x0D]
        case UInt8(ascii: "t"): return [0x09]
        case UInt8(ascii: "u"): return readUnicodeEscape()
        default: return [byte]  // \" \\ \/
        }
    }

    /// A `\u` escape (four hex digits), joining a surrogate pair written as two escapes.
    private mutating func readUnicodeEscape() -> [UInt8]? {
        guard var unit = readHex4() else { return nil }
        if (0xD800..<0xDC00).contains(unit), bytes[index...].starts(with: Array("\\u".utf8)) {
            index += 2
            // Unsigned arithmetic: a second escape that is no low surrogate must not reach it.
            guard let low = readHex4(), (0xDC00..<0xE000).contains(low) else { return nil }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        }
        let scalar = Unicode.Scalar(unit) ?? "\u{FFFD}"
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func readHex4() -> UInt32? {
        guard index + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { return nil }
        index += 4
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }
}
