import Basics
import FoundationEssentials

/// Pack names (docs/design.md §3): 1-248 bytes of UTF-8, so that `<name>.region` fits a file name's 255
/// bytes; no `/` or control characters (a newline or tab breaks `packfs list` and scripts reading `ls`);
/// not starting with `.` (hidden); not ending in `.region` or `.error` (a pack's own files' names).
/// Invalid UTF-8 never reaches here: the FUSE bridge refuses it.
///
/// A name is its bytes (`same`), as the kernel compares directory entries: Swift's `==` calls NFC and NFD
/// spellings equal and would give a directory a second name, so such a new name is refused
/// (`StoreError.normalisationTwin`).
public enum PackName {
    /// The longest name, in bytes: 255 less the 7 of ".region".
    public static let maxBytes = 248

    public static func validate(_ name: String) throws {
        let bytes = name.utf8.count
        guard bytes >= 1 else { throw StoreError.invalidPackName(name, reason: "empty") }
        guard bytes <= maxBytes else {
            throw StoreError.invalidPackName(
                name, reason: "\(bytes) bytes; at most \(maxBytes), so that \"<name>.region\" fits in 255")
        }
        guard !name.contains("/") else { throw StoreError.invalidPackName(name, reason: "contains '/'") }
        if let control = name.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            let code = cFormat("U+%04X", control.value)
            throw StoreError.invalidPackName(name, reason: "contains the control character \(code)")
        }
        guard !name.hasPrefix(".") else { throw StoreError.invalidPackName(name, reason: "starts with '.'") }
        for suffix in [".region", ".error"] where name.hasSuffix(suffix) {
            throw StoreError.invalidPackName(name, reason: "ends in \(suffix), which names a pack's own files")
        }
    }

    /// Whether `a` and `b` are the same name: the same bytes.
    public static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    public static func isValid(_ name: String) -> Bool { (try? validate(name)) != nil }
}
