import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// Decoded sizes by inode, in a table of fixed slots: an inode goes in the slot its number hashes to, replacing
/// whatever was there, so a lookup or an insertion is one multiply and one cache line, nothing grows and nothing is
/// hashed with `Hasher` (the dictionary it replaces cost a cold tile's lookup about 1,000 instructions). A size lost to
/// a newer inode in its slot costs one inflate again. The memory comes from calloc, committed page by page as slots
/// are first written. Used under `ContentCache`'s lock only.
final class SizeTable: @unchecked Sendable {  // guarded by ContentCache.state's lock
    /// Pairs of words: an inode (0: empty; no node has inode 0) and its size.
    private let slots: UnsafeMutablePointer<UInt64>
    private let shift: UInt64
    let count: Int

    /// A table of 2^`bits` slots.
    init(bits: Int) {
        count = 1 << bits
        shift = UInt64(64 - bits)
        if let zeroed = calloc(count * 2, MemoryLayout<UInt64>.stride) {
            slots = zeroed.assumingMemoryBound(to: UInt64.self)
        } else {
            slots = .allocate(capacity: count * 2)
            slots.initialize(repeating: 0, count: count * 2)
        }
    }

    deinit { free(slots) }

    /// Fibonacci hashing: inodes differ in their low bits (row ids), the product's high bits mix them all.
    private func slot(_ inode: Inode) -> Int { Int(truncatingIfNeeded: (inode.rawValue &* 0x9E37_79B9_7F4A_7C15) >> shift) &* 2 }

    subscript(inode: Inode) -> UInt64? {
        get {
            let at = slot(inode)
            return slots[at] == inode.rawValue && inode.rawValue != 0 ? slots[at + 1] : nil
        }
        set {
            let at = slot(inode)
            if let newValue {
                slots[at] = inode.rawValue
                slots[at + 1] = newValue
            } else if slots[at] == inode.rawValue {
                slots[at] = 0
            }
        }
    }

    /// Empties every slot whose inode `drops` (a pack's removal: once per `rm`, a pass over the table).
    func removeAll(where drops: (Inode) -> Bool) {
        for at in stride(from: 0, to: count * 2, by: 2) where slots[at] != 0 && drops(Inode(rawValue: slots[at])) {
            slots[at] = 0
        }
    }
}
