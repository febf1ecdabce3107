#if canImport(Glibc)
    import Glibc
#endif

/// printf-style text through vsnprintf, for PackFS's few formatted figures ("%.1f", "U+%04X"):
/// String(format:) without full Foundation. C conversions only (no %@).
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    var capacity = 64
    while true {
        var buffer = [CChar](repeating: 0, count: capacity)
        let needed = withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) }
        guard needed >= 0 else { return "" }
        if Int(needed) < capacity {
            return String(decoding: buffer.prefix(Int(needed)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        capacity = Int(needed) + 1
    }
}
