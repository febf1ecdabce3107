/// Pack names: 1-255 bytes of UTF-8 without `/`, NUL or a leading `.` (so that every name is a
/// valid directory entry and never hides as a dot file), not ending in `.region` or `.error` (the
/// pack `x.region` would show where pack `x`'s region file is).
///
/// A name is its bytes: two names are the same only when their bytes are (`same`), as the kernel
/// compares directory entries. Swift's `==` calls NFC and NFD spellings of one text equal, so a
/// lookup by `==` would give a directory a second name; a new name that differs from an existing
/// one only in normalisation is refused instead (`StoreError.normalisationTwin`).
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
        for suffix in [".region", ".error"] where name.hasSuffix(suffix) {
            throw StoreError.invalidPackName(name, reason: "ends in \(suffix), which names a pack's own files")
        }
    }

    /// Whether `a` and `b` are the same name: the same bytes.
    public static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    public static func isValid(_ name: String) -> Bool { (try? validate(name)) != nil }
}
