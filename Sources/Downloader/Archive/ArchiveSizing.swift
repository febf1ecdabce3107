import FoundationEssentials
import HTTP
import PMTilesFormat
import PackStore
import StyleModel

/// `packfs estimate`'s view of `pmtiles://` sources: their TileJSON made from the archive, and
/// the size of a sampled tile read from the archive's directories, so no tile is fetched.
final class ArchiveSizing {
    private let fetcher: DocumentFetcher
    private var archives: [String: RemoteArchive] = [:]

    init(fetcher: DocumentFetcher) { self.fetcher = fetcher }

    /// The TileJSON of an archive's source URL; nil for any other URL.
    func tileJSON(_ url: String) throws -> Data? {
        guard ArchiveURL.archiveURL(of: url) != nil else { return nil }
        let archive = try open(url)
        return try archive.tileJSON()
    }

    /// Stored sizes of sampled tiles: an archive's from its directory entries (0 for a tile it
    /// lacks: "no content"), the others from `otherwise`, in the order asked.
    func storedSizes(_ urls: [(url: String, kind: ResourceKind)], otherwise: ([(url: String, kind: ResourceKind)]) throws -> [Int64?])
        throws -> [Int64?]
    {
        var sizes = [Int64?](repeating: nil, count: urls.count)
        var rest: [Int] = []
        for (index, item) in urls.enumerated() {
            guard let (archive, tile) = archiveTile(item.url) else {
                rest.append(index)
                continue
            }
            sizes[index] = try size(of: tile, in: archive)
        }
        for (index, size) in zip(rest, try otherwise(rest.map { urls[$0] })) { sizes[index] = size }
        return sizes
    }

    /// The archive and z/x/y a tile URL (stored form, `<source URL>/z/x/y`) names.
    private func archiveTile(_ url: String) -> (RemoteArchive, (z: Int, x: Int, y: Int))? {
        for (source, archive) in archives where url.hasPrefix(source + "/") {
            let parts = url.dropFirst(source.count + 1).split(separator: "/").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            return (archive, (parts[0], parts[1], parts[2]))
        }
        return nil
    }

    /// What the tile takes stored: its entry's bytes, a gzip member's framing exchanged for zlib's.
    private func size(of tile: (z: Int, x: Int, y: Int), in archive: RemoteArchive) throws -> Int64 {
        guard let id = try? PMTilesTileID(z: tile.z, x: tile.x, y: tile.y).rawValue,
            let entry = try archive.tileEntry(for: id)
        else { return 0 }
        let framing: Int64 = archive.header.tileCompression == .gzip ? 12 : 0
        return max(Int64(entry.length) - framing, 0)
    }

    private func open(_ source: String) throws -> RemoteArchive {
        if let archive = archives[source] { return archive }
        guard let url = ArchiveURL.archiveURL(of: source) else { throw HTTPError.unsupportedScheme(url: source) }
        let fetcher = self.fetcher
        let opening = try fetcher.fetch(url, range: ByteRange(offset: 0, length: RemoteArchive.openingLength))
        let archive = try RemoteArchive(sourceURL: source, requestURL: url, opening: opening) { range in
            try fetcher.fetch(url, range: range)
        }
        archives[source] = archive
        return archive
    }
}
