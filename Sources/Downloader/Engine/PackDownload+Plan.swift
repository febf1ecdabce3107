import FoundationEssentials
import HTTP
import PackStore
import StyleModel

/// Planning: the style and TileJSONs (fetched, or read back when stored), then the plan, and the
/// convergence of a redefined pack to it.
extension PackDownload {
    /// The plan, and the style it was made from (the estimate is made again from it at the end).
    func makePlan() throws -> (DownloadPlan, Style) {
        let styleURL = definition.styleURL
        let (walk, style) = try document(url: styleURL, kind: .style) { data in
            let walk = try Style(data: data, url: styleURL)
            try walk.requireStyleDocument()
            return walk
        }
        var fetched = [styleURL: Estimate.storedSize(style)]
        var sources: [TileSource] = []
        for declared in walk.tileSources {
            guard let url = declared.url else {
                sources.append(try declared.tileSource())
                continue
            }
            let (source, tileJSON) = try document(url: url, kind: .source) { try declared.tileSource(tileJSON: $0) }
            fetched[url] = Estimate.storedSize(tileJSON)
            sources.append(source)
        }
        let plan = DownloadPlan(definition: definition, style: walk, sources: sources)
        try checkTileLimits(all: plan.tileCount, mapbox: plan.mapboxTileCount, planned: true)
        // For progress.json, before the counts turn precise, from the database and these documents
        // only: sampling the server would delay the first request and fetch tiles twice.
        let estimate = try Estimate.make(plan: plan, style: walk, definition: definition, fetched: fetched, database: database)
        try database.setEstimate(estimate.recordedJSON, of: region)
        lock.withLock {
            required.requiredResources = plan.resources.count + plan.tileCount
            required.requiredTiles = plan.tileCount
            required.requiredIsPrecise = true
        }
        return (plan, walk)
    }

    /// Once the run is over, the estimate is made again from the database, where what had no size
    /// at planning has one now. A failure keeps the earlier estimate; the run's outcome stands.
    func recordEstimateAgain(_ plan: DownloadPlan, style: Style) {
        guard let estimate = try? Estimate.make(plan: plan, style: style, definition: definition, fetched: [:], database: database)
        else { return }
        try? database.setEstimate(estimate.recordedJSON, of: region)
    }

    /// A document parsed by `read`, and its content: read back when stored and current; else
    /// fetched, and stored only once `read` and `ContentCheck` took it (a bad one leaves nothing).
    private func document<T>(url: String, kind: ResourceKind, _ read: (Data) throws -> T) throws -> (T, Data) {
        handledDocuments.insert(url)
        if let content = try stagedContent(of: url) { return (try read(content), content) }
        let stored = try database.resource(url: url)
        if let stored, isCurrent(accessed: stored.accessed), let content = try stored.data.decoded() {
            let value = try read(content)
            writer.add(.adoptedResource(url: url))
            return (value, content)
        }
        let isArchive = kind == .source && ArchiveURL.archiveURL(of: url) != nil
        let requestURL = try isArchive ? archiveRequestURL(url) : options.urlPolicy.requestURL(for: url, kind: kind)
        let validators = mode == .refresh ? stored.map { HTTPValidators($0.headers) } : nil
        let request = HTTPRequest<FetchTag>(url: requestURL, validators: validators, tag: .document(url: url, kind: kind))
        let answer = try isArchive
            ? archiveDocument(url, validators: validators) : fetchAndWait(document: url, request: request).get()
        switch answer {
        case .ok(let response):
            let value = try read(response.content)
            // A TileJSON without `tiles` reads when its style lists them; it is still no TileJSON.
            if let expected = ContentKind(resource: kind), let error = Self.mismatch(response.content, expected, url: url) {
                throw error
            }
            writer.add(.resource(url: url, kind: kind, data: response.stored, headers: response.headers))
            return (value, response.content)
        case .notModified(let headers):
            guard let content = try stored?.data.decoded() else { throw DownloadError.emptyStoredCopy(url: url) }
            let value = try read(content)
            writer.add(.revalidatedResource(url: url, headers: headers))
            return (value, content)
        case .noContent(let status, _):
            // A style or TileJSON says what else is needed: without it there is no pack.
            throw HTTPError.status(status, url: requestURL)
        }
    }

    /// Submits one request and blocks until its completion arrives (or the run is stopped).
    /// A run suspended before it asks sends nothing; one suspended while it waits stops waiting.
    func fetchAndWait(document url: String, request: HTTPRequest<FetchTag>) throws -> HTTPOutcome {
        try throwIfStopped()
        begin()
        client?.submit(request)
        waitUntilIdle()
        try throwIfStopped()
        guard let outcome = lock.withLock({ documents.removeValue(forKey: url) }) else {
            throw DownloadError.noAnswer(url: url)
        }
        return outcome
    }

    /// The database-wide caps: reaching one stops the pack, keeping what is stored. Checked with the
    /// plan's counts before anything is fetched (`planned`), then as new tiles arrive.
    func checkTileLimits(all: Int, mapbox: Int, planned: Bool) throws {
        if let max = options.maxTiles, all > max {
            throw DownloadError.tileLimit(limit: max, needed: planned ? all : nil)
        }
        if mapbox > options.mapboxTileLimit {
            throw DownloadError.mapboxTileLimit(limit: options.mapboxTileLimit, needed: planned ? mapbox : nil)
        }
    }

    /// Drops what the pack holds but the plan no longer covers (a changed definition): those rows
    /// stay for other packs or become ambient cache; nothing already stored is fetched again.
    func converge(to plan: DownloadPlan) throws {
        let stale = try members(notIn: plan)
        guard !stale.tiles.isEmpty || !stale.resources.isEmpty else { return }
        try database.unlink(tiles: stale.tiles, resources: stale.resources, from: region)
        writer.recount()
        onMembersLeft?(stale.tiles, stale.resources)
    }

    /// What the pack holds that `plan` does not cover (every key of the pack, in memory).
    func members(notIn plan: DownloadPlan) throws -> (tiles: [TileKey], resources: [String]) {
        var staleTiles = Set(try database.tileKeys(of: region))
        var staleResources = Set(try database.resourceURLs(of: region))
        guard !staleTiles.isEmpty || !staleResources.isEmpty else { return ([], []) }
        for resource in plan.resources { staleResources.remove(resource.url) }
        if !staleTiles.isEmpty {
            plan.forEachTile { key, _, _ in
                staleTiles.remove(key)
                return !staleTiles.isEmpty
            }
        }
        return (Array(staleTiles), Array(staleResources))
    }
}
