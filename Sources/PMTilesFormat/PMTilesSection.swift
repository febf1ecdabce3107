/// Byte ranges of an archive, with the only arithmetic readers do on them: where one ends, and where a range inside one
/// lies. Offsets and lengths come from the archive (outside data): both are checked, never wrapped.
extension PMTilesHeader.Section {
    /// No section ends past 2^63: no file or HTTP resource is that large, and every position
    /// below it converts to `Int` and `Int64` (file offsets, `Data` indexes, `Range` headers).
    public static let maxEnd = UInt64(Int64.max)

    /// The first byte past the section; nil when `offset + length` passes `maxEnd`.
    public var end: UInt64? {
        let (end, overflow) = offset.addingReportingOverflow(length)
        return overflow || end > Self.maxEnd ? nil : end
    }

    /// The `length` bytes at `offset` inside this section, as a range of the archive; nil unless they lie inside it
    /// (and it ends by `maxEnd`).
    public func part(at offset: UInt64, length: UInt64) -> Self? {
        let (inner, overflow) = offset.addingReportingOverflow(length)
        guard !overflow, inner <= self.length, end != nil else { return nil }
        // self.offset + inner <= end <= maxEnd: the sum cannot wrap.
        return Self(offset: self.offset + offset, length: length)
    }

    /// Whether the section lies within the first `count` bytes of the archive.
    public func lies(within count: Int) -> Bool {
        guard let end else { return false }
        return end <= UInt64(max(count, 0))
    }
}
