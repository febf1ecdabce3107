import PackStore
import StyleModel

/// Everything a pack needs once its style and TileJSONs are known: the resources (style first)
/// and, per tiled source, the zooms to cover. Tiles are enumerated lazily, so a region of
/// millions of tiles is never held in memory at once.
struct DownloadPlan {
    struct TileSet {
        var source: TileSource
        var zooms: ClosedRange<Int>
        /// Tiles per zoom, `zooms` in order (the estimate shows them; the total sums them).
        var counts: [Int] = []
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
            return TileSet(source: source, zooms: zooms)
        }
        var total = 0
        var mapbox = 0
        for index in tileSets.indices {
            let set = tileSets[index]
            tileSets[index].counts = set.zooms.map { TileCover.count(covering: definition.area, zoom: $0, within: set.source.bounds) }
            let count = tileSets[index].counts.reduce(0, +)
            total += count
            if set.source.isMapbox { mapbox += count }
        }
        tileCount = total
        mapboxTileCount = mapbox
    }

    /// Every (key, stored-form URL, is-mapbox) in order: source by source, zoom by zoom.
    /// `body` returns false to stop early.
    func forEachTile(_ body: (TileKey, String, Bool) throws -> Bool) rethrows {
        for set in tileSets {
            for z in set.zooms {
                for tile in TileCover(area, zoom: z, within: set.source.bounds) {
                    let (key, url) = set.source.tile(z: z, x: tile.x, y: tile.y, pixelRatio: pixelRatio)
                    guard try body(key, url, set.source.isMapbox) else { return }
                }
            }
        }
    }
}
