import FoundationEssentials

/// A parsed JSON document. Object keys keep no order; the writers that need MapLibre's key order write their own.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `data`; nil when it is not JSON.
    public static func parse(_ data: Data) -> JSONValue? { try? parsing(data) }

    /// Why a text is not JSON, in the parser's words ("Number 1e400 is not representable...").
    public struct SyntaxError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `data`, or says why it is not JSON (`JSONParser`).
    public static func parsing(_ data: Data) throws -> JSONValue {
        var parser = JSONParser(data)
        return try parser.document()
    }

    /// Parses `data`, with the key order (which `.object` forgets) of the object at top-level `member`:
    /// first occurrence first, keys compared by bytes (NFC and NFD are two); nil when there is none.
    public static func parsing(_ data: Data, keepingOrderOf member: String) throws -> (JSONValue, order: [String]?) {
        var parser = JSONParser(data, keepingOrderOf: member)
        return (try parser.document(), parser.memberOrder)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var number: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }

    /// Compact JSON with keys sorted (stable output for files and tests).
    public var compactText: String {
        var out = ""
        JSONWriter(decimalPoints: false).write(self, into: &out)
        return out
    }
}

/// Compact JSON. With `decimalPoints`, every number is written as MapLibre's RapidJSON writer
/// writes a double (`14.0`), because MapLibre rejects integer literals in a region definition.
public struct JSONWriter {
    /// MapLibre's definition needs `14.0`; user metadata keeps `3` as `3`.
    public var decimalPoints: Bool

    public init(decimalPoints: Bool) { self.decimalPoints = decimalPoints }

    public func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += number(n)
        case .string(let s): out += Self.quoted(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, into: &out)
            }
            out += "]"
        case .object(let fields):
            writeObject(fields.sorted { $0.key < $1.key }, into: &out)
        }
    }

    public func writeObject(_ fields: [(key: String, value: JSONValue)], into out: inout String) {
        out += "{"
        for (i, field) in fields.enumerated() {
            if i > 0 { out += "," }
            out += Self.quoted(field.key) + ":"
            write(field.value, into: &out)
        }
        out += "}"
    }

    /// Shortest round-trip form, always with a decimal point or exponent.
    public func number(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if !decimalPoints, n == n.rounded(), abs(n) < 9.0e15 { return String(Int64(n)) }
        var text = "\(n)"
        if !text.contains(".") && !text.contains("e") { text += ".0" }
        return text
    }

    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
