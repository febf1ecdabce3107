import FoundationEssentials

/// RFC 8259 JSON into a `JSONValue`; PackFS's own, as JSONSerialization brings ICU into the binary
/// (docs/benchmarks.md, "Designs measured and set aside"). Refused: nesting deeper than `maxDepth` (so
/// no reader of the value recurses deeper), numbers no double holds (1e400), invalid UTF-8, unpaired
/// surrogates, control characters in strings, anything after the value. A repeated key keeps its last.
struct JSONParser {
    static let maxDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    private let orderedMember: String?
    /// The names of the object at top-level `orderedMember` (`JSONValue.parsing(_:keepingOrderOf:)`).
    private(set) var memberOrder: [String]?

    init(_ data: Data, keepingOrderOf member: String? = nil) {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // a UTF-8 byte order mark
        self.bytes = bytes
        orderedMember = member
    }

    /// The document's one value.
    mutating func document() throws(JSONValue.SyntaxError) -> JSONValue {
        skipSpace()
        let value = try value(depth: 0)
        skipSpace()
        guard index == bytes.count else { throw failure("unexpected text after the value") }
        return value
    }

    private mutating func value(depth: Int, ordered: Bool = false) throws(JSONValue.SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw failure("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1, ordered: ordered)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character \(Self.shown(bytes[index]))")
        }
    }

    /// `ordered`: the object at `orderedMember`, whose names go to `memberOrder`.
    private mutating func object(depth: Int, ordered: Bool = false) throws(JSONValue.SyntaxError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw failure("more than \(Self.maxDepth) nested arrays or objects") }
        index += 1
        var fields: [String: JSONValue] = [:]
        var order: [String] = []
        var spellings = Set<[UInt8]>()
        defer { if ordered { memberOrder = order } }
        skipSpace()
        if try take(UInt8(ascii: "}")) { return .object(fields) }
        repeat {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
            let key = try string()
            if ordered, spellings.insert(Array(key.utf8)).inserted { order.append(key) }
            skipSpace()
            guard try take(UInt8(ascii: ":")) else { throw failure("expected ':' after an object key") }
            skipSpace()
            fields[key] = try value(depth: depth, ordered: depth == 1 && key == orderedMember)
            skipSpace()
        } while try take(UInt8(ascii: ","))
        guard try take(UInt8(ascii: "}")) else { throw failure("expected ',' or '}' in an object") }
        return .object(fields)
    }

    private mutating func array(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw failure("more than \(Self.maxDepth) nested arrays or objects") }
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if try take(UInt8(ascii: "]")) { return .array(items) }
        repeat {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
        } while try take(UInt8(ascii: ","))
        guard try take(UInt8(ascii: "]")) else { throw failure("expected ',' or ']' in an array") }
        return .array(items)
    }

    private mutating func number() throws(JSONValue.SyntaxError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("a number needs a digit") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("a number needs a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw failure("a number needs a digit in its exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONValue.SyntaxError(description: "number \(text.prefix(40)) is not representable as a double (at byte \(start))")
        }
        return value
    }

    private mutating func string() throws(JSONValue.SyntaxError) -> String {
        index += 1  // the opening quote
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: out, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &out)
            case ..<0x20:
                throw failure("control character \(Self.shown(byte)) in a string")
            default:
                out.append(byte)
                index += 1
            }
        }
        throw failure("a string is not closed")
    }

    /// One escape after its backslash, appended as UTF-8.
    private mutating func escape(into out: inout [UInt8]) throws(JSONValue.SyntaxError) {
        guard index < bytes.count else { throw failure("a string is not closed") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"): out.append(contentsOf: String(Character(try unicodeEscape())).utf8)
        default: throw failure("invalid escape \\\(Self.shown(byte))")
        }
    }

    /// The scalar of `\uXXXX` (its `u` read), joining a surrogate pair.
    private mutating func unicodeEscape() throws(JSONValue.SyntaxError) -> Unicode.Scalar {
        let first = try hex4()
        if let scalar = Unicode.Scalar(first) { return scalar }
        guard first < 0xDC00, bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
            throw failure("unpaired surrogate \\u\(String(first, radix: 16))")
        }
        index += 2
        let second = try hex4()
        guard (0xDC00...0xDFFF).contains(second),
              let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
        else { throw failure("unpaired surrogate \\u\(String(first, radix: 16))") }
        return scalar
    }

    private mutating func hex4() throws(JSONValue.SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("\\u needs four hex digits") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            guard let digit = hexDigitValue(byte) else { throw failure("\\u needs four hex digits") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private mutating func literal(_ word: String) throws(JSONValue.SyntaxError) {
        guard bytes[index...].starts(with: word.utf8) else { throw failure("unexpected character \(Self.shown(bytes[index]))") }
        index += word.utf8.count
    }

    /// Takes `byte` when it is next.
    private mutating func take(_ byte: UInt8) throws(JSONValue.SyntaxError) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func skipDigits() {
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    private func failure(_ what: String) -> JSONValue.SyntaxError {
        JSONValue.SyntaxError(description: "\(what) at byte \(index)")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func shown(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
    }
}
