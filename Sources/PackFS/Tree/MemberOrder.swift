import Foundation

/// The names of the object at one top-level member of a JSON document, in document order.
/// `JSONValue` forgets key order, but the order of a style's `sources` picks the mount's primary
/// source. Run on text that already parsed as JSON: this scanner only tracks strings and nesting.
enum MemberOrder {
    static func names(ofObjectAt member: String, in data: Data) -> [String] {
        let bytes = [UInt8](data)
        var index = 0
        var open: [UInt8] = []  // the opening bracket of each enclosing container
        var names: [String] = []
        var inMember = false  // inside the object at top-level `member`
        var expectingKey = false  // the next string is a member name
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let (text, end) = string(bytes, from: index)
                if expectingKey && open.count == 1 && text == member {
                    inMember = bytes[end...].first { !" \t\r\n:".utf8.contains($0) } == UInt8(ascii: "{")
                } else if expectingKey && open.count == 2 && inMember && !names.contains(text) {
                    names.append(text)
                }
                expectingKey = false
                index = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open.append(byte)
                expectingKey = byte == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = open.popLast()
                if open.count == 1 && inMember { return names }
            case UInt8(ascii: ","):
                expectingKey = open.last == UInt8(ascii: "{")
            default: break
            }
            index += 1
        }
        return names
    }

    /// The decoded string starting at the quote at `start`, and the index after its closing quote.
    private static func string(_ bytes: [UInt8], from start: Int) -> (String, Int) {
        var end = start + 1
        while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        let literal = Data(bytes[start...min(end, bytes.count - 1)])
        let text = (try? JSONSerialization.jsonObject(with: literal, options: .fragmentsAllowed)) as? String
        return (text ?? "", end + 1)
    }
}
