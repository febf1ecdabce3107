import ArgumentParser
import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs cache DB preload URL FILE`: MGLOfflineStorage's `preloadData` from the command line.
struct PreloadOptions: ParsableArguments {
    @Option(help: ArgumentHelp("When the resource expires: Unix seconds or ISO 8601 (2027-01-31T12:00:00Z).", valueName: "TIME"))
    var expires: String?
    @Option(help: ArgumentHelp("When the resource was last modified: Unix seconds or ISO 8601.", valueName: "TIME"))
    var modified: String?
    @Option(help: "The resource's HTTP entity tag.") var etag: String?
    @Flag(name: .customLong("must-revalidate"), help: "The resource may not be used past its expiry without revalidation.")
    var mustRevalidate = false
    @Option(help: ArgumentHelp(
        "The resource's kind: unknown, style, source, glyphs, sprite-image, sprite-json, image (default: from the URL).",
        valueName: "KIND"))
    var kind: String?
    @Option(name: .customLong("disk-quota"), help: ArgumentHelp(
        "The database's pages in use at most (suffixes K, M, G): a preload over it is refused.", valueName: "BYTES"))
    var diskQuotaText: String?

    var isSet: Bool {
        expires != nil || modified != nil || etag != nil || mustRevalidate || kind != nil || diskQuotaText != nil
    }

    static let kinds: [String: ResourceKind] = [
        "unknown": .unknown, "style": .style, "source": .source, "glyphs": .glyphs,
        "sprite-image": .spriteImage, "sprite-json": .spriteJSON, "image": .image,
    ]

    func validate(url: String) throws {
        guard ["http://", "https://", MapboxURL.scheme].contains(where: { url.lowercased().hasPrefix($0) }) else {
            throw ValidationError("cache preload: \(url): only http, https and mapbox URLs name resources")
        }
        for (name, value) in [("--expires", expires), ("--modified", modified)] {
            if let value, Self.time(value) == nil {
                throw ValidationError("cache preload: \(name) \"\(value)\" is neither Unix seconds nor an ISO 8601 time")
            }
        }
        if let kind, Self.kinds[kind] == nil {
            throw ValidationError("cache preload: --kind \"\(kind)\" is not one of \(Self.kinds.keys.sorted().joined(separator: ", "))")
        }
        if let diskQuotaText, ByteCount.parse(diskQuotaText) == nil {
            throw ValidationError("cache preload: --disk-quota \"\(diskQuotaText)\" is not a byte count (e.g. 2G)")
        }
    }

    var headers: CacheHeaders {
        CacheHeaders(expires: expires.flatMap(Self.time), modified: modified.flatMap(Self.time), etag: etag,
                     mustRevalidate: mustRevalidate)
    }

    func kind(of url: String) -> ResourceKind { kind.flatMap { Self.kinds[$0] } ?? ResourceKindGuess.kind(of: url) }

    var diskQuota: Int64? { diskQuotaText.flatMap(ByteCount.parse) }

    /// Unix seconds, or an ISO 8601 date and time.
    static func time(_ text: String) -> Int64? {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        return (try? Date(text, strategy: .iso8601)).map { Int64($0.timeIntervalSince1970) }
    }
}

extension CacheCommand {
    func preload(url: String, file: String) throws {
        let content = try readInputFile(file)
        let database = try db.openForChange()
        defer { try? database.close() }
        let kind = preloading.kind(of: url)
        let done = try database.preload(
            url: url, kind: kind, content: content, headers: preloading.headers, diskQuota: preloading.diskQuota)
        if output.json {
            printJSON(.object([
                "url": .string(url), "kind": .number(Double(kind.rawValue)), "bytes": .number(Double(content.count)),
                "stored_bytes": .number(Double(done.storedBytes)), "removed_resources": .number(Double(done.evicted.resources)),
                "removed_tiles": .number(Double(done.evicted.tiles)), "removed_bytes": .number(Double(done.evicted.bytes)),
            ]))
        } else {
            print("preloaded \(url) (\(humanBytes(Int64(content.count))), \(humanBytes(Int64(done.storedBytes))) stored, kind \(kind))")
            if done.evicted.resources + done.evicted.tiles > 0 { report(done.evicted) }
        }
    }
}
