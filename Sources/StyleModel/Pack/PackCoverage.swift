import FoundationEssentials
import PackStore

/// A pack's `coverage.geojson`: the store's coverage of its primary source's tiles (`PackStyle.primary`), in
/// XYZ rows; the one document for the mount and `packfs status --coverage`.
extension PackDocuments {
    public func coverage(of region: RegionID, primary source: PackStyle.Source?) throws -> Data {
        try coverage(of: region, tiles: source?.columns) { y, z in source?.row(y, z: z) ?? y }
    }
}

extension PackStyle {
    /// The primary source, if the pack has one.
    public var primarySource: Source? {
        primary.flatMap { sources.indices.contains($0) ? sources[$0] : nil }
    }
}
