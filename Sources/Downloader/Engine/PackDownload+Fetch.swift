import Basics
import FoundationEssentials
import HTTP
import PackStore
import StyleModel

/// Fetching: every planned resource and tile is adopted when stored, else requested; completions
/// become writes. At most `options.window` requests are outstanding.
extension PackDownload {
    static let chunkSize = 256

    /// Fetches the plan's resources, then its tiles from the `start`-th on (a resume point).
    func fetch(_ plan: DownloadPlan, from start: Int) throws {
        let resources = plan.resources.filter { !handledDocuments.contains($0.url) }
        for start in stride(from: 0, to: resources.count, by: Self.chunkSize) {
            guard !isStopped else { return }
            try fetchResources(Array(resources[start..<min(start + Self.chunkSize, resources.count)]))
        }
        let totals = try database.tileTotals(includingAll: options.maxTiles != nil)
        for set in plan.tileSets { tileContents[set.source.urlTemplate] = set.source.content }
        var chunk: [(key: TileKey, url: String, isMapbox: Bool)] = []
        var chunkStart = start
        try plan.forEachTile(from: start) { key, url, isMapbox in
            chunk.append((key, url, isMapbox))
            if chunk.count == Self.chunkSize {
                try fetchTiles(chunk, start: chunkStart, totals: totals)
                chunkStart += chunk.count
                chunk.removeAll(keepingCapacity: true)
            }
            return !isStopped
        }
        if !isStopped { try fetchTiles(chunk, start: chunkStart, totals: totals) }
        if !isStopped { try flushArchives() }
    }

    private func fetchResources(_ chunk: [StyleResource]) throws {
        let stored = try database.storedResources(chunk.map(\.url))
        let staged = try stagedResources(chunk.map(\.url))
        var requests: [HTTPRequest<FetchTag>] = []
        for resource in chunk where !staged.contains(resource.url) {
            if let row = stored[resource.url], isCurrent(accessed: row.accessed) {
                writer.add(.adoptedResource(url: resource.url))
                continue
            }
            let url = try options.urlPolicy.requestURL(for: resource.url, kind: resource.kind)
            let validators = stored[resource.url].map { HTTPValidators($0.headers) }
            requests.append(HTTPRequest(url: url, validators: validators, tag: .resource(resource)))
        }
        submit(requests)
    }

    /// One chunk of the plan's tiles, the first at plan position `start`: each is adopted or
    /// requested, and its write names the chunk (`ResumeLedger`).
    private func fetchTiles(
        _ chunk: [(key: TileKey, url: String, isMapbox: Bool)], start: Int, totals: (all: Int?, mapbox: Int)
    ) throws {
        let stored = try database.storedTiles(chunk.map(\.key).filter(templateHasTiles))
        let staged = try stagedTiles(chunk.map(\.key))
        var requests: [HTTPRequest<FetchTag>] = []
        ledger.opened(start: start, count: chunk.count)
        for tile in chunk {
            if staged.contains(tile.key) {
                writer.add(.alreadyStaged, chunk: start)
                continue
            }
            if let row = stored[tile.key], isCurrent(accessed: row.accessed) {
                writer.add(.adoptedTile(tile.key), chunk: start)
                continue
            }
            if stored[tile.key] == nil { try countNewTile(isMapbox: tile.isMapbox, totals: totals) }
            if try takeArchiveTile(tile.key, chunk: start, stored: stored[tile.key] != nil) { continue }
            let url = try options.urlPolicy.requestURL(for: tile.url, kind: .tile)
            let validators = stored[tile.key].map { HTTPValidators($0.headers) }
            let content = tileContents[tile.key.urlTemplate] ?? .vectorTile
            requests.append(HTTPRequest(url: url, validators: validators, tag: .tile(tile.key, chunk: start, content: content)))
        }
        submit(requests)
    }

    /// Whether the database held tiles of this template when the run first met it: when not, only
    /// this run stores its keys, which spares a lookup per tile of a first download (a tile another
    /// process stores meanwhile is fetched again and upserted).
    private func templateHasTiles(_ key: TileKey) throws -> Bool {
        if let known = templatesStored[key.urlTemplate] { return known }
        let known = try database.hasTiles(urlTemplate: key.urlTemplate)
        templatesStored[key.urlTemplate] = known
        return known
    }

    private func countNewTile(isMapbox: Bool, totals: (all: Int?, mapbox: Int)) throws {
        newTiles += 1
        if isMapbox { newMapboxTiles += 1 }
        try checkTileLimits(all: (totals.all ?? 0) + newTiles, mapbox: totals.mapbox + newMapboxTiles, planned: false)
    }

    func submit(_ requests: [HTTPRequest<FetchTag>]) {
        guard !requests.isEmpty else { return }
        waitUntil(outstandingAtMost: max(0, options.window - requests.count))
        guard !isStopped, let client else { return }
        begin(requests.count)
        client.submit(contentsOf: requests)
    }

    /// Called on the HTTP loop thread for every request: hands the result to the writer.
    func handle(_ completion: HTTPCompletion<FetchTag>) {
        defer { end() }
        switch completion.tag {
        case .document(let url, _):
            lock.withLock { documents[url] = completion.outcome }
        case .resource(let resource):
            handleResource(resource, completion)
        case .tile(let key, let chunk, let content):
            handleTile(key, chunk: chunk, content: content, completion)
        case .archiveTiles(let piece):
            handleArchiveTiles(piece, completion)
        }
    }

    private func handleResource(_ resource: StyleResource, _ completion: HTTPCompletion<FetchTag>) {
        guard let answer = answer(completion) else { return }
        switch answer {
        case .ok(let response):
            if let content = resource.content, let error = Self.mismatch(response.content, content, url: resource.url) {
                return stop(.failed(error))
            }
            writer.add(.resource(url: resource.url, kind: resource.kind, data: response.stored, headers: response.headers))
        case .notModified(let headers):
            writer.add(.revalidatedResource(url: resource.url, headers: headers))
        case .noContent:
            // A missing sprite or glyph range is not needed after all (MapLibre's rule).
            lock.withLock { required.requiredResources -= 1 }
        }
    }

    private func handleTile(_ key: TileKey, chunk: Int, content: ContentKind, _ completion: HTTPCompletion<FetchTag>) {
        // Validators were sent exactly when the tile was stored.
        let replaces = completion.request.validators != nil
        guard let answer = answer(completion) else { return }
        switch answer {
        case .ok(let response):
            if let error = Self.mismatch(response.content, content, url: TileURLTemplate.url(for: key)) {
                return stop(.failed(error))
            }
            let stored = tileStorage.stored(content: response.content, received: response.stored)
            writer.add(
                .tile(key, data: stored.data, size: stored.size, headers: response.headers, replaces: replaces),
                chunk: chunk)
        case .notModified(let headers):
            writer.add(.revalidatedTile(key, headers: headers), chunk: chunk)
        case .noContent(_, let headers):
            writer.add(.tile(key, data: .noContent, size: nil, headers: headers, replaces: replaces), chunk: chunk)
        }
    }

    /// The error for `content` that is not a `kind` (`ContentCheck`), naming the stored-form URL
    /// (no token); `url` is built only for a mismatch.
    static func mismatch(_ content: Data, _ kind: ContentKind, url: @autoclosure () -> String) -> DownloadError? {
        ContentCheck.mismatch(content, expected: kind).map {
            DownloadError.unexpectedContent(url: url(), expected: kind.expected, got: $0)
        }
    }

    /// The completion's answer; nil after stopping the run on its error (a cancelled request's
    /// only ends it: the run was stopped already).
    func answer(_ completion: HTTPCompletion<FetchTag>) -> HTTPAnswer? {
        switch completion.outcome {
        case .success(let answer): return answer
        case .failure(.cancelled): return nil
        case .failure(let error):
            stop(.failed(error))
            return nil
        }
    }

    func begin(_ count: Int = 1) {
        lock.withLock { outstanding += count }
    }

    /// One request finished. Wakes the submitter only when it is waiting for this count, so a
    /// completion costs no context switch in the common case.
    func end() {
        let wake = lock.withLock {
            outstanding -= 1
            return outstanding <= wakeAt
        }
        if wake { wakeWaiters() }
    }

    func wakeWaiters() {
        idle.withLock { idle.broadcast() }
    }

    func waitUntilIdle() { waitUntil(outstandingAtMost: 0) }

    func waitUntil(outstandingAtMost limit: Int) {
        idle.lock()
        defer { idle.unlock() }
        while !isStopped {
            let count = lock.withLock {
                wakeAt = outstanding <= limit ? -1 : limit
                return outstanding
            }
            if count <= limit { return }
            idle.wait()
        }
    }
}
