import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// File contents, decoded from the store at read time (immutable ones cached by inode).
extension PackFilesystem {
    func content(of node: Node, inode: Inode, _ request: Request) throws -> Data {
        if let cached = cache.content(inode) { return cached }
        switch node {
        case .status: return try statusJSON()
        case .packList: return try packListJSON()
        case .webFile(let index): return try pageFile(index).content
        case .rejection(let serial):
            guard let rejection = rejections.file(serial) else { throw FilesystemError.stale }
            return Data((rejection.reason + "\n").utf8)
        case .draft(let serial):
            guard let draft = drafts.draft(serial) else { throw FilesystemError.stale }
            return draft.content
        case .scratch(let serial):
            guard let file = scratches.file(serial) else { throw FilesystemError.stale }
            return file.content
        case .patch(let serial):
            // Write-only: what was copied so far is the spool's, not read back through the mount.
            guard uploads.file(serial) != nil else { throw FilesystemError.stale }
            throw FilesystemError.notPermitted
        case .pack(let region, .regionFile):
            // While the file is open for writing it reads as written so far, as on a disk.
            let pack = try request.pack(region)
            return try drafts.draft(named: pack.name)?.content ?? regionFile(pack)
        case .pack(let region, .progress):
            return Data((try database.progress(of: region).json.compactText + "\n").utf8)
        case .pack(let region, .coverage):
            // The layout only once the pack is counted (see `packChild`).
            _ = try request.pack(region)
            let source = try database.coverageCounted(region) ? try request.layout(region).primarySource : nil
            return try database.coverage(of: region, primary: source)
        case .pack(let region, .style):
            let layout = try request.layout(region)
            guard let style = layout.style else { throw FilesystemError.stale }
            return rewriter(layout.pack).style(style, sources: layout.sources)
        case .pack(let region, .webStyle):
            let layout = try request.layout(region)
            guard let style = layout.style, let web = webRewriter(layout.pack) else { throw FilesystemError.stale }
            return web.style(style, sources: layout.sources)
        case .source(let region, let ref, .tileJSON): return remember(try tileJSON(region, ref, request), inode)
        case .source(let region, let ref, .data):
            guard let url = try request.source(region, ref).1.declared.url else { throw FilesystemError.stale }
            return remember(try resourceContent(url: url, in: region), inode)
        case .tile(let region, let id, let tag):
            let content = try version(tag, of: .tile, id.rawValue, previous: ServedTile.content(of:)) {
                try database.servedTile(.row(id), in: region)?.content
            }
            guard let content else { throw FilesystemError.stale }
            return remember(content, inode)
        case .resource(let region, let id, let tag):
            let data = try version(tag, of: .resource, id.rawValue, previous: { try $0.decoded() }) {
                try database.packResourceData(id, in: region)?.decoded()
            }
            guard let data else { throw FilesystemError.stale }
            return remember(data, inode)
        case .root, .packs, .pack, .source, .zoom, .column, .fontStack:
            throw FilesystemError.isDirectory
        }
    }

    /// The bytes of the row version `tag` names: the live row's, those a switch replaced while
    /// kept (`SwitchedRows`), else nil (a version no longer served).
    private func version(_ tag: RowTag, of kind: SwitchedKind, _ id: Int64, previous: (StoredData) throws -> Data?,
                         live: () throws -> Data?) throws -> Data? {
        guard database.hasSwitchedRows, let switched = try database.switchedRow(kind, id) else {
            return tag == .initial ? try live() : nil
        }
        if tag.names(switched.version) { return try live() }
        guard switched.version > 0, tag.names(switched.version - 1), let kept = switched.previous else { return nil }
        return try previous(kept)
    }

    func remember(_ data: Data, _ inode: Inode) -> Data {
        cache.store(data, for: inode)
        return data
    }

    /// URLs into `MOUNTPOINT/packs/<name>/` as `file://` (percent-encoded: MapLibre decodes them).
    func rewriter(_ pack: Pack) -> StyleRewriter {
        StyleRewriter(base: StyleRewriter.fileURL(path: mountpoint + "/packs/" + pack.name) + "/")
    }

    static let webStyleName = "web-style.json"

    /// URLs absolute under `--web-base`: MapLibre GL JS resolves nothing relative to the style.
    func webRewriter(_ pack: Pack) -> StyleRewriter? {
        guard let webBase else { return nil }
        let base = webBase.hasSuffix("/") ? String(webBase.dropLast()) : webBase
        return StyleRewriter(base: base + "/packs/" + Tokens.percentEncode(pack.name) + "/")
    }

    /// The region file a user would write to make this pack again.
    func regionFile(_ pack: Pack) throws -> Data {
        guard let definition = pack.definition else { return Data((pack.definitionText + "\n").utf8) }
        return Data(RegionFile(definition: definition, metadata: pack.metadata, tileStorage: pack.tileStorage).encoded().utf8)
    }

    /// The stored TileJSON's exact bytes, unless a server echoed the requester's token in its tile
    /// URLs: every reader of the mount reads this file, so secrets show as `***` (docs/design.md §2).
    private func tileJSON(_ region: RegionID, _ ref: SourceRef, _ request: Request) throws -> Data {
        let (layout, source) = try request.source(region, ref)
        guard let url = source.declared.url else { return rewriter(layout.pack).tileJSON(source) }
        let content = try resourceContent(url: url, in: region)
        guard let text = String(validating: content, as: UTF8.self) else { return content }
        let redacted = Redaction.text(text)
        return redacted == text ? content : Data(redacted.utf8)
    }

    /// The content of the pack's resource stored under `url` (`.stale` when it holds none).
    private func resourceContent(url: String, in region: RegionID) throws -> Data {
        guard let id = try database.packResourceID(url: url, in: region),
            let data = try database.packResourceData(id, in: region)?.decoded()
        else { throw FilesystemError.stale }
        return data
    }

    /// Database-wide figures for status.json.
    private func statusJSON() throws -> Data {
        // A file deleted or replaced under the mount: say that instead of figures no longer readable.
        if let problem = database.fileProblem {
            return Data((JSONValue.object(["problem": .string(problem)]).compactText + "\n").utf8)
        }
        let counts = try database.databaseCounts()
        let disk = try database.diskUsage()
        let reclaiming = try database.reclaiming()
        let ahead = readAhead.figures
        func number<T: BinaryInteger>(_ value: T) -> JSONValue { .number(Double(value)) }
        // Figures not counted yet (an app's database is counted in the background) are null.
        func counted<T: BinaryInteger>(_ value: T) -> JSONValue { counts.counted ? number(value) : .null }
        let status: JSONValue = .object([
            "packs": number(counts.packs),
            "bytes": number(counts.bytes),
            "resources": counted(counts.resources),
            "tiles": counted(counts.tiles),
            "counting": .bool(!counts.counted),
            "tile_limit": tileLimit.map(number) ?? .null,
            "ambient_cache": .object([
                "bytes": counted(counts.ambient.bytes),
                "resources": counted(counts.ambient.resources),
                "tiles": counted(counts.ambient.tiles),
                "limit": number(counts.ambientLimit),
            ]),
            "disk": .object([
                "file_bytes": number(disk.fileBytes),
                "used_bytes": number(disk.usedBytes),
                "free_bytes": number(disk.freeBytes),
                "available_bytes": number(availableBytes(onDiskOf: database.path)),
                "quota": diskQuota.map(number) ?? .null,
            ]),
            "transport": transport.withLock { $0 }.map(JSONValue.string) ?? .null,
            // Tiles read ahead of a serial reader since the mount, and how many it then asked for.
            "read_ahead": .object(["tiles": number(ahead.tiles), "used": number(ahead.used)]),
            // Removed packs whose rows and pages are still being given back, or null.
            "reclaiming": reclaiming.map { .object(["packs": number($0.packs), "rows": $0.rows.map(number) ?? .null]) } ?? .null,
            "problem": .null,
        ])
        return Data((status.compactText + "\n").utf8)
    }
}
