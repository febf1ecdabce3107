import Basics
import FoundationEssentials
import HTTP
import PMTilesFormat
import PackStore
import StyleModel

/// A PMTiles archive on a server, as far as its header and directories: which bytes hold a tile.
/// Read by range through the owner's `read` (retries, `--allow-host`...); leaf directories are read
/// when first needed and a few kept. One thread.
public final class RemoteArchive {
    /// Header and root directory lie in the first 16 KiB (spec section 2); one request reads both.
    public static let openingLength: UInt64 = 16_384
    /// Root, leaves, leaves of leaves: what the reference readers follow.
    static let maxDepth = 3
    /// Leaf directories kept: a region's tiles in plan order touch a few at a time.
    static let keptLeaves = 64

    /// A range's bytes and the response they came in.
    public struct Part {
        public var data: Data
        public var headers: CacheHeaders

        public init(data: Data, headers: CacheHeaders) {
            self.data = data
            self.headers = headers
        }
    }

    /// The `pmtiles://` URL that names the archive (the stored TileJSON's URL).
    public let sourceURL: String
    /// Where its ranges are requested (the http(s) URL after `--rewrite`).
    public let requestURL: String
    public let header: PMTilesHeader
    /// The version the directories were read from; tile ranges ask for it (If-Match).
    public let etag: String?
    /// The headers of the opening request, stored with the TileJSON and the tiles.
    public let headers: CacheHeaders
    private var root: [PMTilesEntry] = []
    private let opening: Data
    private let read: (ByteRange) throws -> Part
    private var leaves: [UInt64: [PMTilesEntry]] = [:]

    /// Opens the archive from the answer to its opening range (`openingLength` bytes from 0).
    public init(sourceURL: String, requestURL: String, opening part: Part, read: @escaping (ByteRange) throws -> Part) throws {
        self.sourceURL = sourceURL
        self.requestURL = requestURL
        self.read = read
        opening = part.data
        headers = part.headers
        etag = part.headers.etag
        do {
            header = try PMTilesHeader(decoding: part.data)
        } catch {
            throw DownloadError.archive(url: sourceURL, reason: "\(error)")
        }
        for (what, compression) in [("directory", header.internalCompression), ("tile", header.tileCompression)]
        where ![.none, .gzip, .unknown].contains(compression) {
            throw failure("\(what) compression \(compression) is not supported (gzip or none)")
        }
        root = try directory(header.rootDirectory, what: "root directory")
    }

    /// The entry holding tile `id` (a run that covers it), or nil when the archive lacks it.
    func entry(for id: UInt64) throws -> PMTilesEntry? {
        var entries = root
        for _ in 0..<Self.maxDepth {
            guard let found = Self.lastEntry(in: entries, atOrBefore: id) else { return nil }
            if !found.isLeaf { return id - found.tileID < UInt64(found.runLength) ? found : nil }
            entries = try leaf(found)
        }
        throw failure("leaf directories nest deeper than \(Self.maxDepth) levels")
    }

    /// The entry holding tile `id`, checked to lie inside the tile data; nil when the archive
    /// lacks the tile. Throws, naming the tile, for an entry whose bytes lie outside.
    public func tileEntry(for id: UInt64) throws -> PMTilesEntry? {
        guard let entry = try entry(for: id) else { return nil }
        guard header.tileData.part(at: entry.offset, length: UInt64(entry.length)) != nil else {
            let name = PMTilesTileID(rawValue: id).name
            throw failure("tile \(name) (\(entry.length) bytes at \(entry.offset)) lies outside the tile data")
        }
        return entry
    }

    /// The opening request's bytes of `length` bytes at `offset` in the tile data, when it
    /// holds all of them (a small archive's first tiles come with its header).
    func openingBytes(tileDataOffset offset: UInt64, length: UInt64) -> Data? {
        guard let part = header.tileData.part(at: offset, length: length) else { return nil }
        return openingBytes(part)
    }

    /// The bytes of `section` when the opening request holds all of them.
    private func openingBytes(_ section: PMTilesHeader.Section) -> Data? {
        guard section.lies(within: opening.count), let start = Int(exactly: section.offset), let count = Int(exactly: section.length)
        else { return nil }
        return opening.subdata(in: start..<(start + count))
    }

    /// The source's TileJSON, made from the header and the metadata (ArchiveTileJSON).
    public func tileJSON() throws -> Data {
        ArchiveTileJSON.make(sourceURL: sourceURL, header: header, metadata: try metadata())
    }

    /// The root directory's entries.
    public var rootEntries: [PMTilesEntry] { root }

    /// The metadata object (`{}` when the archive has none).
    public func metadata() throws -> JSONValue {
        guard header.metadata.length > 0 else { return .object([:]) }
        let bytes = try section(header.metadata, what: "metadata")
        guard let value = JSONValue.parse(bytes), value.object != nil else {
            throw failure("the metadata is not a JSON object")
        }
        return value
    }

    /// The bytes of `range` in `response`: all of a 206, or the range's place in a 200 (a server
    /// that ignores ranges sends the whole archive); nil when the body falls short.
    public static func bytes(of response: HTTPResponse, for range: ByteRange) -> Data? {
        let body = response.content
        if response.status == 206 { return body }
        guard let start = Int(exactly: range.offset), start <= body.count else { return nil }
        return body.subdata(in: start..<(start + min(body.count - start, Int(clamping: range.length))))
    }

    /// The error for an archive that cannot be read as one, naming it.
    func failure(_ reason: String) -> DownloadError {
        .archive(url: sourceURL, reason: reason)
    }

    /// The entry with the greatest tile id not above `id` (entries are sorted by tile id).
    static func lastEntry(in entries: [PMTilesEntry], atOrBefore id: UInt64) -> PMTilesEntry? {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].tileID <= id { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : entries[low - 1]
    }

    private func leaf(_ pointer: PMTilesEntry) throws -> [PMTilesEntry] {
        if let kept = leaves[pointer.offset] { return kept }
        guard let section = header.leafDirectories.part(at: pointer.offset, length: UInt64(pointer.length)) else {
            throw failure(
                "a leaf directory (\(pointer.length) bytes at \(pointer.offset)) lies outside the leaf directories")
        }
        let entries = try directory(section, what: "leaf directory at \(pointer.offset)")
        if leaves.count >= Self.keptLeaves { leaves.removeAll(keepingCapacity: true) }
        leaves[pointer.offset] = entries
        return entries
    }

    private func directory(_ section: PMTilesHeader.Section, what: String) throws -> [PMTilesEntry] {
        do {
            return try PMTilesDirectory.decode(self.section(section, what: what))
        } catch let error as PMTilesFormatError {
            throw failure("the \(what): \(error)")
        }
    }

    /// A section's bytes in the internal compression, decompressed: from the opening bytes when
    /// it lies inside them, else with a request of its own.
    private func section(_ section: PMTilesHeader.Section, what: String) throws -> Data {
        guard let length = Int(exactly: section.length), length <= Zlib.maxInflatedBytes else {
            throw failure("the \(what) is \(section.length) bytes")
        }
        // The header checked that every section ends below 2^63 (PMTilesSection.swift).
        var raw: Data
        do {
            raw = try openingBytes(section) ?? read(ByteRange(offset: section.offset, length: section.length, ifMatch: etag)).data
        } catch HTTPError.status(416, _) {
            throw failure(
                "the \(what) (\(length) bytes at \(section.offset)) lies past the end of the archive (HTTP 416)")
        }
        guard raw.count == length else {
            throw failure("the \(what) (\(length) bytes at \(section.offset)) lies past the end of the archive")
        }
        guard header.internalCompression == .gzip else { return raw }
        do {
            raw = try Zlib.inflate(raw, windowBits: 31)
        } catch {
            throw failure("the \(what) does not inflate (\(error))")
        }
        return raw
    }
}
