import Basics
import Downloader
import Foundation
import HTTP
import PMTilesFormat
import PackStore

/// The same bytes as a `pmtiles://` source on a server: read range by range through the reader a
/// download and `packfs estimate` use (header and root from the opening range, metadata and
/// leaves by ranges of their own, a range past the end answered short, as a server does), its
/// TileJSON read as a source's, and tiles of every zoom and of every root entry's run looked up
/// and planned into range requests. Each request must lie inside the tile data and hold its
/// tiles; every id is answered once.
extension FuzzBodies {
    static let archiveSource = "pmtiles://http://127.0.0.1:9/fuzz.pmtiles"

    static func remoteArchive(_ data: Data) throws {
        let serve = { (range: ByteRange) -> RemoteArchive.Part in
            RemoteArchive.Part(data: servedBytes(data, range), headers: CacheHeaders())
        }
        let opening = serve(ByteRange(offset: 0, length: RemoteArchive.openingLength))
        guard let archive = try? RemoteArchive(
            sourceURL: archiveSource, requestURL: "http://127.0.0.1:9/fuzz.pmtiles", opening: opening, read: serve)
        else { return }
        if let tileJSON = try? archive.tileJSON() { try self.tileJSON(tileJSON) }
        let ids = probeIDs(archive)
        guard let lookup = try? archive.lookUp(ids) else { return }
        try check(lookup, of: archive, ids: ids.count, data: data)
    }

    /// What a server answers for `range`: the bytes of it that the archive holds.
    private static func servedBytes(_ data: Data, _ range: ByteRange) -> Data {
        guard let start = Int(exactly: range.offset), start < data.count else { return Data() }
        return data.subdata(in: start..<(start + min(data.count - start, Int(clamping: range.length))))
    }

    /// Tiles to look up: corners and middle of each zoom the header names, and the first, last
    /// and next tile of each root entry's run (at most 600 ids).
    private static func probeIDs(_ archive: RemoteArchive) -> [UInt64?] {
        var ids: [UInt64?] = [nil, UInt64.max]
        for z in Int(archive.header.minZoom)...Int(archive.header.maxZoom) {
            let last = (1 << z) - 1
            for (x, y) in [(0, 0), (last, last), (last / 2, last / 2), (last, 0)] {
                ids.append(try? PMTilesTileID(z: z, x: x, y: y).rawValue)
            }
        }
        for entry in archive.rootEntries.prefix(150) {
            let (end, overflow) = entry.tileID.addingReportingOverflow(UInt64(entry.runLength))
            ids += [entry.tileID, overflow ? nil : end &- 1, overflow ? nil : end]
        }
        return ids
    }

    private static func check(_ lookup: ArchiveLookup, of archive: RemoteArchive, ids: Int, data: Data) throws {
        let tileData = archive.header.tileData
        var answered = lookup.absent + lookup.inOpening.map(\.index)
        for request in lookup.requests {
            let range = request.range
            let (end, overflow) = range.offset.addingReportingOverflow(range.length)
            try check(!overflow && range.offset >= tileData.offset && end <= tileData.offset + tileData.length,
                      "a request (\(range.length) bytes at \(range.offset)) outside the tile data")
            for slice in request.members {
                try check(slice.start >= 0 && slice.length > 0 && UInt64(slice.start + slice.length) <= range.length,
                          "a tile (\(slice.length) bytes at \(slice.start)) outside its request of \(range.length) bytes")
                answered.append(slice.index)
            }
        }
        try check(answered.sorted() == Array(0..<ids), "\(answered.count) answers for \(ids) tiles")
    }
}
