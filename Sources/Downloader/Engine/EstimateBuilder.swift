import Basics
import PackStore
import StyleModel

/// Puts an `Estimate` together from a plan: measures what the database holds, asks for the
/// samples still missing in one batch, and fills in the rest (see `Estimate`).
struct EstimateBuilder {
    typealias Sampler = ([(url: String, kind: ResourceKind)]) throws -> [Int64?]

    let plan: DownloadPlan
    let definition: RegionDefinition
    /// Stored sizes of the documents fetched to plan, by URL.
    let fetched: [String: Int64]
    let database: OfflineDatabase?
    let sizing: ResourceSizing

    /// Columns about the region's centre that a stored sample looks in, at most (one seek each).
    static let storedColumns = 16

    init(plan: DownloadPlan, style: Style, definition: RegionDefinition, fetched: [String: Int64], database: OfflineDatabase?) {
        self.plan = plan
        self.definition = definition
        self.fetched = fetched
        self.database = database
        sizing = ResourceSizing(style: style, resources: plan.resources, includeIdeographs: definition.includeIdeographs)
    }

    /// `tileSamples` 0: nothing is asked of `sample` (a download's plan makes no extra requests).
    func build(tileSamples: Int, sample: Sampler) throws -> Estimate {
        let stored = try plan.tileSets.map(storedMeasures)
        let storedResources = try database?.resourceSizes(sizing.entries.map(\.url)) ?? [:]
        let known = storedResources.merging(fetched) { stored, _ in stored }
        let sampled = try samples(budget: tileSamples, measured: stored, known: known, sample)
        let sources = plan.tileSets.indices.map { index in
            source(index, measured: stored[index].merging(sampled.tiles[index]) { stored, _ in stored })
        }
        return Estimate(
            sources: sources,
            resourceGroups: sizing.tallies(fetched: fetched, stored: storedResources, sampled: sampled.resources),
            resources: plan.resources.count, tiles: plan.tileCount)
    }

    /// Asks `sample` once for what neither the database (`measured`, `known`) nor the documents
    /// told: tile sizes as a mean per tile set and zoom, resources' by URL; failures left out.
    private func samples(budget: Int, measured: [[Int: ZoomSizes.Measure]], known: [String: Int64], _ sample: Sampler)
        throws -> (tiles: [[Int: ZoomSizes.Measure]], resources: [String: Int64])
    {
        var tileSizes = Array(repeating: [Int: [Int64]](), count: plan.tileSets.count)
        guard budget > 0 else { return (tileSizes.map(Self.measures), [:]) }
        let picks = TileSampling.picks(plan.tileSets.indices.map { shape($0, measured: measured[$0]) }, budget: budget)
        let tiles = picks.compactMap(tileRequest)
        let resources = sizing.samples(known: known)
        let requests = tiles.map { (url: $0.url, kind: ResourceKind.tile) } + resources
        let sizes = requests.isEmpty ? [] : try sample(requests)
        for (request, size) in zip(tiles, sizes) {
            if let size { tileSizes[request.pick.set][request.pick.zoom, default: []].append(size) }
        }
        var resourceSizes: [String: Int64] = [:]
        for (resource, size) in zip(resources, sizes.dropFirst(tiles.count)) { resourceSizes[resource.url] = size }
        return (tileSizes.map(Self.measures), resourceSizes)
    }

    private func source(_ index: Int, measured: [Int: ZoomSizes.Measure]) -> Estimate.Source {
        let set = plan.tileSets[index]
        let filled = ZoomSizes.fill(set.zooms, measured: measured)
        let zooms = zip(set.zooms, zip(set.counts, filled)).map { zoom, pair in
            let (tiles, measure) = pair
            return Estimate.Zoom(
                zoom: zoom, tiles: tiles, bytes: measure.map { Self.bytes($0.mean, times: tiles) },
                basis: measure?.basis ?? .unknown)
        }
        return Estimate.Source(id: set.source.id, urlTemplate: set.source.urlTemplate, zooms: set.zooms, perZoom: zooms)
    }

    private static func measures(_ samples: [Int: [Int64]]) -> [Int: ZoomSizes.Measure] {
        samples.compactMapValues { sizes in
            sizes.isEmpty ? nil : ZoomSizes.Measure(mean: Double(sizes.reduce(0, +)) / Double(sizes.count), basis: .sampled(sizes.count))
        }
    }

    /// `mean * count` as a byte count (finite and far below Int64's range for any real cover).
    static func bytes(_ mean: Double, times count: Int) -> Int64 {
        let total = (mean * Double(count)).rounded()
        return total.isFinite ? Int64(min(max(total, 0), 1e18)) : 0
    }

    // MARK: Tiles

    private func shape(_ index: Int, measured: [Int: ZoomSizes.Measure]) -> TileSampling.SetShape {
        let set = plan.tileSets[index]
        return TileSampling.SetShape(
            zooms: set.zooms, measured: Set(measured.keys), tiles: set.tiles,
            deepestTiles: set.counts.last ?? 0)
    }

    private func tileRequest(_ pick: TileSampling.Pick) -> (pick: TileSampling.Pick, url: String)? {
        let source = plan.tileSets[pick.set].source
        guard let tile = TileCover.tile(at: pick.spot, covering: plan.area, zoom: pick.zoom, within: source.bounds)
        else { return nil }
        return (pick, source.tile(z: tile.z, x: tile.x, y: tile.y, pixelRatio: plan.pixelRatio).url)
    }

    /// Per zoom, the mean size of the tiles the database holds there.
    private func storedMeasures(_ set: DownloadPlan.TileSet) throws -> [Int: ZoomSizes.Measure] {
        guard let database else { return [:] }
        let source = set.source
        let ratio = source.keyPixelRatio(pixelRatio: plan.pixelRatio)
        var measures: [Int: ZoomSizes.Measure] = [:]
        for zoom in set.zooms {
            var sample = SizeSample()
            if let (columns, rows) = Self.nearby(plan.area, zoom: zoom, within: source.bounds) {
                // Rows as stored: a TMS source's are flipped.
                let (a, b) = (source.scheme.row(rows.lowerBound, z: zoom), source.scheme.row(rows.upperBound, z: zoom))
                sample = try database.tileSizes(
                    urlTemplate: source.urlTemplate, pixelRatio: ratio, z: zoom, columns: columns, rows: min(a, b)...max(a, b))
            }
            if sample.count == 0 { sample = try database.tileSizes(urlTemplate: source.urlTemplate, pixelRatio: ratio, z: zoom) }
            if let mean = sample.mean { measures[zoom] = ZoomSizes.Measure(mean: mean, basis: .stored(sample.count)) }
        }
        return measures
    }

    /// The columns about the centre of the region's bounding box at `zoom` (within the source's
    /// bounds), `storedColumns` at most, and its rows in XYZ numbering.
    static func nearby(_ area: RegionDefinition.Area, zoom: Int, within bounds: Bounds?)
        -> (columns: [Int], rows: ClosedRange<Int>)?
    {
        let extent: Bounds?
        switch area {
        case .bounds(let box): extent = box
        case .geometry(let geometry): extent = geometry.bounds
        }
        guard let extent, let rect = TileGrid(zoom: zoom).rect(of: extent, within: bounds) else { return nil }
        let first = max(0, rect.width / 2 - storedColumns / 2)
        let columns = (first..<min(rect.width, first + storedColumns)).map { TileSampling.column($0, of: rect.columns) }
        return (columns, rect.rows)
    }
}
