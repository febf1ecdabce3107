/// A tile's file name, `<y>.<extension>` and a NUL, written into one buffer that a page of a listing reuses: a
/// `String` made for each of a column's names cost more than the rest of its entry (docs/benchmarks.md,
/// "Walking a big pack").
struct TileFileName {
    /// `.<extension>` and its NUL.
    private let suffix: [CChar]
    private var bytes: [CChar]

    init(fileExtension: String) {
        suffix = Array(".\(fileExtension)".utf8CString)
        // Int's most digits (19) and a sign would fit; a tile's row has at most 8 digits.
        bytes = [CChar](repeating: 0, count: 20 + suffix.count)
    }

    /// `body` with the name of row `y` (not negative: a tile's row in its zoom's grid).
    mutating func with<T>(_ y: Int, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        var digits = 1
        var rest = y / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let suffix = suffix
        return try bytes.withUnsafeMutableBufferPointer { buffer in
            var value = max(y, 0)
            for index in (0..<digits).reversed() {
                buffer[index] = CChar(48 + value % 10)
                value /= 10
            }
            for (offset, byte) in suffix.enumerated() { buffer[digits + offset] = byte }
            guard let name = buffer.baseAddress else { return try "".withCString(body) }  // never: it is not empty
            return try body(name)
        }
    }
}
