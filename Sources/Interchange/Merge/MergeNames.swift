import PackStore

/// Names for merged packs whose own name is taken: `name-2`, `name-3`..., as PackFS names an app's packs that share a
/// name. A name is taken when one equals it up to Unicode normalisation (String's `==`): a twin would look alike.
enum MergeNames {
    /// `base` when it is free, else the first free `base-<n>`, n from 2.
    static func free(_ base: String, taken: [String]) -> String {
        var candidate = base
        var serial = 1
        while taken.contains(where: { $0 == candidate }) {
            serial += 1
            candidate = suffixed(base, serial)
        }
        return candidate
    }

    /// `base-<serial>`, `base` cut by whole characters to keep the name within PackName.maxBytes.
    static func suffixed(_ base: String, _ serial: Int) -> String {
        let suffix = "-\(serial)"
        var stem = Substring(base)
        while stem.utf8.count + suffix.utf8.count > PackName.maxBytes, !stem.isEmpty { stem.removeLast() }
        return stem + suffix
    }

    /// Whether `name` is one that `free` can give for `base` when `base` is taken.
    static func isSuffixed(_ name: String, of base: String) -> Bool {
        guard let dash = name.lastIndex(of: "-") else { return false }
        let digits = name[name.index(after: dash)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let serial = Int(digits), serial >= 2 else {
            return false
        }
        return PackName.same(suffixed(base, serial), name)
    }
}
