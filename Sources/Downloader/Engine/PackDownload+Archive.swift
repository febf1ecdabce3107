import Basics
import FoundationEssentials
import HTTP
import PMTilesFormat
import PackStore
import StyleModel

/// What a run knows of its `pmtiles://` sources (the caller's thread only).
struct ArchiveState {
    struct Pending {
        var key: TileKey
        var chunk: Int
        var replaces: Bool
    }

    /// Tiles waiting per archive, looked up and merged into ranges `batch` at a time: the plan lists
    /// tiles row by row, the archive along a Hilbert curve, and only a batch of hundreds of rows meets
    /// the curve in long runs that share requests.
    static let batch = 1 << 16

    /// Per tile template of an archive source of the plan: the archive's source URL, the
    /// template's scheme (a style may say `tms`) and what its tiles must be.
    var templates: [String: (source: String, scheme: TileScheme, content: ContentKind)] = [:]
    var opened: [String: RemoteArchive] = [:]
    /// Archives a refresh found unchanged (304 to their opening range), with that answer's headers.
    var unchanged: [String: CacheHeaders] = [:]
    var pending: [String: [Pending]] = [:]
}

/// `pmtiles://` sources: the archive's metadata as the source's TileJSON, its tiles by merged
/// range requests (docs/design.md §4), refresh by the archive's ETag.
extension PackDownload {
    /// The answer to the opening range of a `pmtiles://` source's archive: a 200's content is the
    /// TileJSON made from its header and metadata, stored with the archive's validators. A refresh
    /// sends `validators`: a 304 leaves the archive and its tiles as stored, for one request.
    func archiveDocument(_ url: String, validators: HTTPValidators?) throws -> HTTPAnswer {
        let opening = ByteRange(offset: 0, length: RemoteArchive.openingLength)
        let answer = try fetchArchive(url, opening, validators: validators)
        switch answer {
        case .ok(var response):
            let tileJSON = try openArchive(url, response, opening).tileJSON()
            (response.content, response.stored) = (tileJSON, StoredData.encoding(tileJSON))
            return .ok(response)
        case .notModified(let headers):
            archives.unchanged[url] = headers
            return answer
        case .noContent:
            return answer
        }
    }

    /// Notes which of the plan's tile templates are archives' (before any tile is fetched).
    func noteArchives(of plan: DownloadPlan) {
        for set in plan.tileSets {
            guard let source = ArchiveURL.sourceURL(ofTemplate: set.source.urlTemplate) else { continue }
            archives.templates[set.source.urlTemplate] = (source, set.source.scheme, set.source.content)
        }
    }

    /// Takes a tile the run needs from an archive (true), or leaves it to an ordinary request.
    func takeArchiveTile(_ key: TileKey, chunk: Int, stored: Bool) throws -> Bool {
        // Called for every tile requested: a plan without archives pays no lookup.
        guard !archives.templates.isEmpty, let source = archives.templates[key.urlTemplate]?.source else { return false }
        if stored, let headers = archives.unchanged[source] {
            writer.add(.revalidatedTile(key, headers: headers), chunk: chunk)
            return true
        }
        archives.pending[source, default: []].append(.init(key: key, chunk: chunk, replaces: stored))
        if archives.pending[source, default: []].count >= ArchiveState.batch { try flushArchive(source) }
        return true
    }

    /// Requests every tile still waiting.
    func flushArchives() throws {
        for source in archives.pending.keys.sorted() { try flushArchive(source) }
    }

    /// Requests one archive's waiting tiles by merged ranges; a tile the archive lacks is "no
    /// content", as a 404 is, and one the opening request brought is cut from it.
    private func flushArchive(_ source: String) throws {
        guard let tiles = archives.pending.removeValue(forKey: source), !tiles.isEmpty, !isStopped else { return }
        let archive = try openedArchive(source)
        let template = archives.templates.values.first { $0.source == source }
        let (scheme, content) = (template?.scheme ?? .xyz, template?.content ?? .vectorTile)
        let ids = tiles.map { try? PMTilesTileID(z: $0.key.z, x: $0.key.x, y: scheme.row($0.key.y, z: $0.key.z)).rawValue }
        let lookup = try archive.lookUp(ids)
        for index in lookup.absent {
            let tile = tiles[index]
            writer.add(.tile(tile.key, data: .noContent, size: nil, headers: archive.headers, replaces: tile.replaces), chunk: tile.chunk)
        }
        for (index, bytes) in lookup.inOpening {
            let tile = tiles[index]
            let piece = ArchivePiece.Tile(key: tile.key, chunk: tile.chunk, start: 0, length: bytes.count, replaces: tile.replaces)
            try store([piece], from: bytes, headers: archive.headers, source: source, content: content)
        }
        let requests = lookup.requests.map { request in
            let pieces = request.members.map { slice in
                let tile = tiles[slice.index]
                return ArchivePiece.Tile(key: tile.key, chunk: tile.chunk, start: slice.start, length: slice.length, replaces: tile.replaces)
            }
            return HTTPRequest<FetchTag>(
                url: archive.requestURL, range: request.range,
                tag: .archiveTiles(ArchivePiece(sourceURL: source, range: request.range, tiles: pieces, content: content)))
        }
        submit(requests)
    }

    /// Cuts an answered range into its tiles (on a decode worker).
    func handleArchiveTiles(_ piece: ArchivePiece, _ completion: HTTPCompletion<FetchTag>) {
        if case .failure(.status(416, _)) = completion.outcome {
            // The header placed the tile data where the archive has no bytes.
            return stop(.failed(DownloadError.archive(
                url: piece.sourceURL, reason: "bytes \(piece.range.header) of its tile data lie past the end of the archive (HTTP 416)")))
        }
        guard let answer = answer(completion) else { return }
        guard case .ok(let response) = answer, let body = RemoteArchive.bytes(of: response, for: piece.range),
            UInt64(body.count) == piece.range.length
        else {
            return stop(.failed(DownloadError.archive(
                url: piece.sourceURL, reason: "bytes \(piece.range.header) came back short (HTTP \(answer.status))")))
        }
        do {
            try store(piece.tiles, from: body, headers: response.headers, source: piece.sourceURL, content: piece.content)
        } catch {
            stop(.failed(error))
        }
    }

    /// Writes tiles cut from `body`: gzip tiles inflated for their content and kept deflated
    /// for storage, as a gzip body is (inflated for a pack that stores its tiles so).
    private func store(
        _ tiles: [ArchivePiece.Tile], from body: Data, headers: CacheHeaders, source: String, content: ContentKind
    ) throws {
        try decoders.with { decoder in
            for tile in tiles {
                let bytes = body.subdata(in: tile.start..<(tile.start + tile.length))
                let coding = bytes.starts(with: [0x1F, 0x8B]) ? "gzip" : "identity"
                let decoded: BodyDecoder.Decoded
                do {
                    decoded = try decoder.decode(bytes, contentEncoding: coding, limit: Zlib.maxInflatedBytes, url: source)
                } catch {
                    let key = tile.key
                    throw DownloadError.archive(url: source, reason: "tile \(key.z)/\(key.x)/\(key.y) does not inflate (\(error))")
                }
                if let error = Self.mismatch(decoded.content, content, url: TileURLTemplate.url(for: tile.key)) { throw error }
                let stored = tileStorage.stored(content: decoded.content, received: decoded.stored)
                writer.add(
                    .tile(tile.key, data: stored.data, size: stored.size, headers: headers, replaces: tile.replaces),
                    chunk: tile.chunk)
            }
        }
    }

    /// The archive, opened with its own opening range when planning did not need it (the
    /// TileJSON was stored already).
    private func openedArchive(_ source: String) throws -> RemoteArchive {
        if let archive = archives.opened[source] { return archive }
        let opening = ByteRange(offset: 0, length: RemoteArchive.openingLength)
        guard case .ok(let response) = try fetchArchive(source, opening, validators: nil) else {
            throw DownloadError.archive(url: source, reason: "no content for its header")
        }
        return try openArchive(source, response, opening)
    }

    private func openArchive(_ source: String, _ response: HTTPResponse, _ opening: ByteRange) throws -> RemoteArchive {
        let part = RemoteArchive.Part(data: RemoteArchive.bytes(of: response, for: opening) ?? Data(), headers: response.headers)
        let archive = try RemoteArchive(sourceURL: source, requestURL: archiveRequestURL(source), opening: part) { [unowned self] range in
            guard case .ok(let response) = try self.fetchArchive(source, range, validators: nil),
                let data = RemoteArchive.bytes(of: response, for: range)
            else { throw DownloadError.archive(url: source, reason: "no content for bytes \(range.header)") }
            return RemoteArchive.Part(data: data, headers: response.headers)
        }
        archives.opened[source] = archive
        return archive
    }

    /// One range of the archive, waited for (header, metadata, directories).
    private func fetchArchive(_ source: String, _ range: ByteRange, validators: HTTPValidators?) throws -> HTTPAnswer {
        let url = try archiveRequestURL(source)
        let tag = "\(source) bytes=\(range.header)"
        let request = HTTPRequest<FetchTag>(url: url, validators: validators, range: range, tag: .document(url: tag, kind: .source))
        return try fetchAndWait(document: tag, request: request).get()
    }

    func archiveRequestURL(_ source: String) throws -> String {
        guard let archive = ArchiveURL.archiveURL(of: source) else { throw HTTPError.unsupportedScheme(url: source) }
        return try options.urlPolicy.requestURL(for: archive, kind: .source)
    }
}
