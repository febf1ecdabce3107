import FoundationEssentials
import PackStore

/// `coverage.geojson` of a pack: the coverage (`PackDocuments.coverage`, the store's) of its primary
/// source's tiles (`PackStyle.primary`, the tiles at the pack's top), in XYZ rows. The mount and
/// `packfs status --coverage` both ask here, so they print the same document.
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
