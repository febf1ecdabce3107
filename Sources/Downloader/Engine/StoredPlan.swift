import FoundationEssentials
import PackStore
import StyleModel

/// The tiles a pack's plan needs (`DownloadPlan`), from the stored style and TileJSONs, with no
/// request: what `packfs verify` checks completeness against. Nil for a pack whose documents are
/// not all stored (never downloaded, imported, a `pmtiles://` archive).
public struct StoredPlan: Sendable {
    private let plan: DownloadPlan

    /// Tiles the plan needs, every source.
    public var tileCount: Int { plan.tileCount }

    public static func make(for definition: RegionDefinition, in database: OfflineDatabase) throws -> StoredPlan? {
        guard let styleData = try database.resource(url: definition.styleURL)?.data.decoded(),
            let style = try? Style(data: styleData, url: definition.styleURL),
            (try? style.requireStyleDocument()) != nil
        else { return nil }
        var sources: [TileSource] = []
        for declared in style.tileSources {
            var tileJSON: Data?
            if let url = declared.url {
                guard let stored = try database.resource(url: url)?.data.decoded() else { return nil }
                tileJSON = stored
            }
            guard let source = try? declared.tileSource(tileJSON: tileJSON) else { return nil }
            sources.append(source)
        }
        return StoredPlan(plan: DownloadPlan(definition: definition, style: style, sources: sources))
    }

    /// Every tile's key (rows as stored), source by source and zoom by zoom; `body` returns false to stop.
    public func forEachTile(_ body: (TileKey) throws -> Bool) rethrows {
        try plan.forEachTile { key, _, _ in try body(key) }
    }
}
