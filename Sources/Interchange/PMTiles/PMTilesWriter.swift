import Basics
import FoundationEssentials
import PMTilesFormat
import PackStore

/// Writes a clustered PMTiles v3 archive from tiles in any order, holding 16 bytes a tile (contents go to a scratch
/// file, `PMTilesContents`). `finish` sorts by id, clusters the contents, run-length merges consecutive ids, and
/// writes the sections to a hidden sibling renamed onto `path`: a failure leaves no half-written archive.
final class PMTilesWriter {
    struct Summary: Equatable, Sendable {
        var addressedTiles: Int
        var entries: Int
        var contents: Int
        var leafDirectories: Int
        var fileBytes: UInt64
    }

    private struct Tile {
        var id: UInt64
        var content: Int
    }

    let path: String
    private let contents: PMTilesContents
    private var tiles: [Tile] = []

    init(path: String) throws {
        self.path = path
        contents = try PMTilesContents(path: ExportPlacement.sibling(of: path, "contents"))
    }

    /// Adds tile z/x/y (XYZ rows) with `data` as the archive holds it (gzipped when its tile compression says so).
    func add(z: Int, x: Int, y: Int, data: Data) throws {
        let id = try PMTilesTileID(z: z, x: x, y: y)
        tiles.append(Tile(id: id.rawValue, content: try contents.add(data)))
    }

    /// Writes the archive; `header` gives the tile type, compression, bounds and center, the rest is set here.
    func finish(header template: PMTilesHeader, metadata: JSONValue) throws -> Summary {
        tiles.sort { $0.id < $1.id }
        guard let lowest = tiles.first, let highest = tiles.last else {
            throw InterchangeError.noTiles(path)
        }
        try contents.flush()
        let (entries, order, dataLength) = try layOut()
        let directories = try PMTilesDirectories(entries, compress: Zlib.gzip)
        let metadataBytes = try Zlib.gzip(Data(metadata.compactText.utf8))
        var header = template
        header.clustered = true
        header.internalCompression = .gzip
        header.rootDirectory = .init(offset: UInt64(PMTilesHeader.size), length: UInt64(directories.root.count))
        header.metadata = .init(offset: header.rootDirectory.offset + header.rootDirectory.length, length: UInt64(metadataBytes.count))
        header.leafDirectories = .init(offset: header.metadata.offset + header.metadata.length, length: UInt64(directories.leaves.count))
        header.tileData = .init(offset: header.leafDirectories.offset + header.leafDirectories.length, length: dataLength)
        header.addressedTiles = UInt64(tiles.count)
        header.tileEntries = UInt64(entries.count)
        header.tileContents = UInt64(order.count)
        header.minZoom = try UInt8(PMTilesTileID(rawValue: lowest.id).tile().z)
        header.maxZoom = try UInt8(PMTilesTileID(rawValue: highest.id).tile().z)
        header.centerZoom = min(max(header.centerZoom, header.minZoom), header.maxZoom)
        try write([header.encoded, directories.root, metadataBytes, directories.leaves], then: order)
        return Summary(
            addressedTiles: tiles.count, entries: entries.count, contents: order.count,
            leafDirectories: directories.leafCount, fileBytes: header.tileData.offset + dataLength)
    }

    /// The entries (id order, offsets into the tile data) and the contents in written order; a tile given twice throws.
    private func layOut() throws -> (entries: [PMTilesEntry], order: [Int], dataLength: UInt64) {
        var placed = [UInt64?](repeating: nil, count: contents.blobs.count)
        var order: [Int] = []
        var entries: [PMTilesEntry] = []
        var end: UInt64 = 0
        for tile in tiles {
            let blob = contents.blobs[tile.content]
            let offset = placed[tile.content] ?? end
            if placed[tile.content] == nil {
                placed[tile.content] = offset
                order.append(tile.content)
                end += UInt64(blob.length)
            }
            if let last = entries.last, last.tileID == tile.id {
                throw InterchangeError.unwritablePMTiles("tile \(PMTilesTileID(rawValue: tile.id).name) was given twice")
            }
            if let last = entries.last, last.offset == offset, last.runLength < UInt32.max,
                last.tileID + UInt64(last.runLength) == tile.id
            {
                entries[entries.count - 1].runLength += 1
            } else {
                entries.append(PMTilesEntry(tileID: tile.id, offset: offset, length: blob.length, runLength: 1))
            }
        }
        return (entries, order, end)
    }

    /// Writes `sections`, then the contents in `order`, to a temporary file renamed onto `path`.
    private func write(_ sections: [Data], then order: [Int]) throws {
        let temporary = ExportPlacement.sibling(of: path, "partial")
        let handle: PosixFile
        do {
            handle = try PosixFile(path: temporary, access: .write, create: true, truncate: true)
        } catch {
            throw InterchangeError.cannotWrite(temporary, action: "create", reason: "\(error)")
        }
        // Gone once renamed; removed here when anything failed.
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            defer { handle.close() }
            var buffer = Data()
            for section in sections { buffer.append(section) }
            let scratch = try contents.mapped()
            for index in order {
                let blob = contents.blobs[index]
                buffer.append(scratch[Int(blob.offset)..<Int(blob.offset) + Int(blob.length)])
                if buffer.count >= 1 << 20 {
                    try handle.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try handle.write(buffer)
            try handle.synchronize()
        }
        try ExportPlacement.moveIntoPlace(temporary, path)
    }
}
