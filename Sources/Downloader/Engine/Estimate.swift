import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// What a region needs before anything is downloaded (`packfs estimate`, and the `estimate` of a
/// pack's `progress.json`): tiles per source and zoom, resources per group, and their bytes.
///
/// Counts are exact (the cover is counted without enumerating). Bytes are stored sizes (what
/// `completed_bytes` will count), estimated from what is at hand, best first:
/// - resources the database holds, and the documents fetched to plan, by their own size;
/// - a zoom's tiles by the mean of stored tiles of the same template and pixel ratio at that zoom,
///   a bounded sample through the tiles index (`OfflineDatabase.tileSizes`);
/// - else a handful of server samples (`TileSampling`, `ResourceSizing`; a 204 or 404 is 0 bytes);
/// - other zooms interpolated in log space (`ZoomSizes`); resources by the mean of their class.
/// What has nothing to go by is counted in `unknownTiles` / `unknown` and left out of `bytes`.
public struct Estimate: Sendable {
    public struct Zoom: Equatable, Sendable {
        public var zoom: Int
        public var tiles: Int
        /// nil when unknown.
        public var bytes: Int64?
        public var basis: ByteBasis
    }

    public struct Source: Sendable {
        public var id: String
        public var urlTemplate: String
        public var zooms: ClosedRange<Int>?
        public var perZoom: [Zoom]

        public var tiles: Int { perZoom.reduce(0) { $0 + $1.tiles } }
        /// Bytes of the zooms whose size is known or estimated.
        public var bytes: Int64 { perZoom.reduce(0) { $0.saturatingAdd($1.bytes ?? 0) } }
        public var unknownTiles: Int { perZoom.reduce(0) { $0 + ($1.bytes == nil ? $1.tiles : 0) } }
    }

    /// Tiled sources in style order, each template once (a second source with the same template
    /// names the same tiles, counted and fetched once).
    public var sources: [Source]
    public var resourceGroups: [ResourceTally]
    /// The style, TileJSONs, GeoJSON data, images, sprites and glyph ranges.
    public var resources: Int
    public var tiles: Int
    /// HTTP requests made for this estimate (documents and samples); 0 when nothing was fetched.
    public var requests = 0

    public var tileBytes: Int64 { sources.reduce(0) { $0.saturatingAdd($1.bytes) } }
    public var resourceBytes: Int64 { resourceGroups.reduce(0) { $0.saturatingAdd($1.bytes) } }
    public var bytes: Int64 { tileBytes.saturatingAdd(resourceBytes) }
    public var unknownTiles: Int { sources.reduce(0) { $0 + $1.unknownTiles } }
    public var unknownResources: Int { resourceGroups.reduce(0) { $0 + $1.unknown } }

    /// Tile samples at most, by default: a handful of requests, spread over the zooms.
    public static let defaultTileSamples = 8

    /// Fetches the style and TileJSONs, measures what `database` holds, samples the rest from
    /// the server (at most `tileSamples` tiles; 0 for none).
    public static func make(for definition: RegionDefinition, options: DownloadOptions, database: OfflineDatabase? = nil,
                            tileSamples: Int = defaultTileSamples) throws -> Estimate {
        let fetcher = try DocumentFetcher(options: options, trusting: definition.styleURL)
        defer { fetcher.shutdown() }
        let archives = ArchiveSizing(fetcher: fetcher)
        var estimate = try make(
            for: definition, database: database, tileSamples: tileSamples,
            document: { try archives.tileJSON($0) ?? fetcher.fetch($0, kind: $1) },
            sample: { try archives.storedSizes($0, otherwise: fetcher.storedSizes) })
        estimate.requests = fetcher.requests
        return estimate
    }

    /// The same with the documents from `document(url, kind)` and samples (nil: failed) from
    /// `sample` instead of the network (the hostile-input tests and fuzz targets).
    public static func make(
        for definition: RegionDefinition, database: OfflineDatabase? = nil, tileSamples: Int = 0,
        document: (String, ResourceKind) throws -> Data,
        sample: ([(url: String, kind: ResourceKind)]) throws -> [Int64?] = { $0.map { _ in nil } }
    ) throws -> Estimate {
        let styleData = try document(definition.styleURL, .style)
        let style = try Style(data: styleData, url: definition.styleURL)
        try style.requireStyleDocument()
        var fetched = [definition.styleURL: storedSize(styleData)]
        var sources: [TileSource] = []
        for declared in style.tileSources {
            let tileJSON = try declared.url.map { try document($0, .source) }
            if let url = declared.url, let tileJSON { fetched[url] = storedSize(tileJSON) }
            sources.append(try declared.tileSource(tileJSON: tileJSON))
        }
        let plan = DownloadPlan(definition: definition, style: style, sources: sources)
        let builder = EstimateBuilder(plan: plan, style: style, definition: definition, fetched: fetched, database: database)
        return try builder.build(tileSamples: tileSamples, sample: sample)
    }

    /// A download's estimate, when its plan is made: from what `database` holds and the
    /// documents read to plan (`fetched`: their stored sizes by URL), with no request.
    static func make(plan: DownloadPlan, style: Style, definition: RegionDefinition, fetched: [String: Int64],
                     database: OfflineDatabase) throws -> Estimate {
        let builder = EstimateBuilder(plan: plan, style: style, definition: definition, fetched: fetched, database: database)
        return try builder.build(tileSamples: 0) { _ in [] }
    }

    /// The size `content` takes in the database (zlib when that is smaller, as stored).
    static func storedSize(_ content: Data) -> Int64 {
        Int64(StoredData.encoding(content).storedSize)
    }
}

extension Int64 {
    /// A byte total that stops at `Int64.max` instead of trapping: a world region to z24 sums past
    /// Int64 though each zoom is capped (`EstimateBuilder.bytes`), and a server's samples decide.
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }
}
