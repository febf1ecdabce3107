import Foundation
import PackStore
import StyleModel

/// What a region needs before anything is downloaded: `packfs estimate`. The style and TileJSONs
/// are fetched (nothing is stored); tile counts come from the cover without enumerating.
public struct Estimate: Sendable {
    public struct Source: Sendable {
        public var id: String
        public var zooms: ClosedRange<Int>?
        public var tiles: Int
    }

    public var sources: [Source]
    /// The style, TileJSONs, sprites and glyph ranges.
    public var resources: Int
    public var tiles: Int
    /// Bytes of the documents fetched to plan (the rest is unknown until downloaded).
    public var documentBytes: Int

    public static func make(for definition: RegionDefinition, options: DownloadOptions) throws -> Estimate {
        let fetcher = try DocumentFetcher(options: options)
        defer { fetcher.shutdown() }
        return try make(for: definition) { try fetcher.fetch($0, kind: $1) }
    }

    /// The same plan with the style and TileJSON documents from `document(url, kind)` instead of
    /// the network (the hostile-input tests and the fuzz targets plan from bytes they hold).
    public static func make(for definition: RegionDefinition, document: (String, ResourceKind) throws -> Data)
        throws -> Estimate
    {
        let style = try document(definition.styleURL, .style)
        let walk = try Style(data: style, url: definition.styleURL)
        var bytes = style.count
        var sources: [Source] = []
        var tileSources: [TileSource] = []
        for declared in walk.tileSources {
            let tileJSON = try declared.url.map { try document($0, .source) }
            bytes += tileJSON?.count ?? 0
            let source = try declared.tileSource(tileJSON: tileJSON)
            tileSources.append(source)
            let zooms = source.coveringZooms(minZoom: definition.minZoom, maxZoom: definition.maxZoom)
            let count = zooms?.reduce(0) { $0 + TileCover.count(covering: definition.area, zoom: $1, within: source.bounds) } ?? 0
            sources.append(Source(id: declared.id, zooms: zooms, tiles: count))
        }
        let plan = DownloadPlan(definition: definition, style: walk, sources: tileSources)
        return Estimate(sources: sources, resources: plan.resources.count, tiles: plan.tileCount, documentBytes: bytes)
    }
}

/// Fetches single documents synchronously (for planning without a database).
final class DocumentFetcher: @unchecked Sendable {  // `outcome` is handed from the completion to `fetch` by the `done` semaphore, one fetch at a time
    private let options: DownloadOptions
    private var client: HTTPClient<Int>!
    private let done = DispatchSemaphore(value: 0)
    private var outcome: HTTPOutcome?

    init(options: DownloadOptions) throws {
        self.options = options
        let policy = options.urlPolicy
        client = try HTTPClient<Int>(
            configuration: options.http, allowHost: { policy.allows(host: $0, port: $1) },
            completion: { [unowned self] completion in
                self.outcome = completion.outcome
                self.done.signal()
            })
    }

    func fetch(_ url: String, kind: ResourceKind) throws -> Data {
        let requestURL = try options.urlPolicy.requestURL(for: url, kind: kind)
        client.submit(HTTPRequest(url: requestURL, tag: 0))
        done.wait()
        switch outcome {
        case .ok(let response): return response.content
        case .clientError(let status), .noContent(let status, _): throw HTTPError.status(status, url: requestURL)
        case .failed(let error): throw error
        case .notModified, nil: throw HTTPError.status(304, url: requestURL)
        }
    }

    func shutdown() { client.shutdown() }
}
