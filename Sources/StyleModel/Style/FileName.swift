/// Names a pack's tree takes from a style: source ids (`sources/<id>/`), sprite ids
/// (`sprites/<id>.json`) and font stacks (`glyphs/<stack>/`). MapLibre takes any string; `escape`
/// makes each one path component, no two the same, so everything a pack holds can be shown.
public enum FileName {
    /// `%` becomes `%25`, `/` `%2F` and NUL `%00`; the empty name is `%`, `.` is `%2E` and `..` is
    /// `%2E%2E` (outputs no other name escapes to). Names without those come back unchanged.
    public static func escape(_ name: String) -> String {
        switch name {
        case "": return "%"
        case ".": return "%2E"
        case "..": return "%2E%2E"
        default:
            var escaped = ""
            for scalar in name.unicodeScalars {
                switch scalar {
                case "%": escaped += "%25"
                case "/": escaped += "%2F"
                case "\0": escaped += "%00"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            return escaped
        }
    }

    /// Directory entries hold 255 bytes: a name that would not fit (with `reserving` more bytes of
    /// suffix) is refused where the style is read, naming the field, rather than stored and never shown.
    static func check(_ name: String, reserving: Int = 0, field: String, document: String) throws {
        let bytes = escape(name).utf8.count + reserving
        guard bytes <= 255 else {
            throw StyleError.invalidField(
                url: document, field: field, reason: "a name of \(bytes) bytes in the pack's tree; at most 255")
        }
    }
}
