/// Pack names: 1-255 bytes of UTF-8 without `/`, NUL or a leading `.` (so that every name is a
/// valid directory entry and never hides as a dot file).
public enum PackName {
    public static func validate(_ name: String) throws {
        let bytes = name.utf8.count
        guard bytes >= 1 else { throw StoreError.invalidPackName(name, reason: "empty") }
        guard bytes <= 255 else {
            throw StoreError.invalidPackName(name, reason: "\(bytes) bytes; at most 255")
        }
        guard !name.contains("/") else { throw StoreError.invalidPackName(name, reason: "contains '/'") }
        guard !name.contains("\0") else { throw StoreError.invalidPackName(name, reason: "contains NUL") }
        guard !name.hasPrefix(".") else {
            throw StoreError.invalidPackName(name, reason: "starts with '.'")
        }
    }

    public static func isValid(_ name: String) -> Bool { (try? validate(name)) != nil }
}
