import PackStore
import StyleModel

/// Everything a pack needs once its style and TileJSONs are known: the resources (style first)
/// and the zooms to cover per tiled source, its tiles enumerated lazily (never all in memory).
struct DownloadPlan {
    struct TileSet {
        var source: TileSource
        var zooms: ClosedRange<Int>
        /// Tiles per zoom, `zooms` in order (the estimate shows them; the total sums them).
        var counts: [Int]

        var tiles: Int { counts.reduce(0, +) }
    }

    var resources: [StyleResource]
    var tileSets: [TileSet]
    var area: RegionDefinition.Area
    var pixelRatio: Double
    /// Exact: the cover counts without enumerating.
    var tileCount: Int
    var mapboxTileCount: Int

    init(definition: RegionDefinition, style: Style, sources: [TileSource]) {
        resources = [StyleResource(url: style.url, kind: .style)]
            + style.resources(includeIdeographs: definition.includeIdeographs)
        area = definition.area
        pixelRatio = definition.pixelRatio
        var seen = Set<String>()
        tileSets = sources.compactMap { source in
            // Two sources with one template would name the same tiles: count and fetch them once.
            guard seen.insert(source.urlTemplate).inserted,
                let zooms = source.coveringZooms(minZoom: definition.minZoom, maxZoom: definition.maxZoom)
            else { return nil }
            let counts = zooms.map { TileCover.count(covering: definition.area, zoom: $0, within: source.bounds) }
            return TileSet(source: source, zooms: zooms, counts: counts)
        }
        tileCount = tileSets.reduce(0) { $0 + $1.tiles }
        mapboxTileCount = tileSets.filter(\.source.isMapbox).reduce(0) { $0 + $1.tiles }
    }

    /// Every (key, stored-form URL, is-mapbox) in plan order from the `start`-th on, reached by whole
    /// zooms and row runs, not tile by tile. `body` returns false to stop early.
    func forEachTile(from start: Int = 0, _ body: (TileKey, String, Bool) throws -> Bool) rethrows {
        var skip = max(start, 0)
        for set in tileSets {
            for (z, count) in zip(set.zooms, set.counts) {
                if skip >= count {
                    skip -= count
                    continue
                }
                for span in TileCover(area, zoom: z, within: set.source.bounds).spans {
                    if skip >= span.x.count {
                        skip -= span.x.count
                        continue
                    }
                    for x in span.x.dropFirst(skip) {
                        let (key, url) = set.source.tile(z: z, x: x, y: span.y, pixelRatio: pixelRatio)
                        guard try body(key, url, set.source.isMapbox) else { return }
                    }
                    skip = 0
                }
            }
        }
    }

    /// Names the plan (FNV-1a of its definition, tile sets and resources): a resume point is only
    /// used for the plan it was recorded for.
    func fingerprint(of definition: RegionDefinition) -> String {
        var text = definition.mapLibreJSON + "\n"
        for set in tileSets {
            let source = set.source
            text += "\(source.urlTemplate) \(source.scheme) \(set.zooms) \(String(describing: source.bounds)) \(set.counts)\n"
        }
        for resource in resources { text += "\(resource.kind.rawValue) \(resource.url)\n" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return "v1:" + String(hash, radix: 16) + ":\(tileCount)"
    }
}
