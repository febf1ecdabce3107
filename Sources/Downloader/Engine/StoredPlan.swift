import FoundationEssentials
import PackStore
import StyleModel

/// The tiles a pack's plan needs, made as a download makes it (`DownloadPlan`), from the style
/// and TileJSONs the database holds: no request. `packfs verify` checks a pack's completeness
/// against it. A pack whose documents are not all stored (never downloaded, an imported file's
/// pack, a `pmtiles://` source's archive) has no plan to check against: nil.
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

    /// Every tile's key (rows as stored), source by source and zoom by zoom; `body` returns
    /// false to stop.
    public func forEachTile(_ body: (TileKey) throws -> Bool) rethrows {
        try plan.forEachTile { key, _, _ in try body(key) }
    }
}
