import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// Tiles read, checked and hashed together, their stored bytes end to end in one buffer (no `Data` per
/// tile). A worker inflates each once (`prepare`), checking it and finding its export bytes.
struct TileBatch: Sendable {
    struct Tile: Sendable {
        var z: Int
        var column: Int
        var tmsRow: Int
        var storedY: Int
        var stored: Range<Int>
        var compressed: Bool
    }

    let source: String
    let vector: Bool
    private(set) var tiles: [Tile] = []
    /// The tiles' bytes (`BatchPipeline.arena`).
    let arena: ByteArena
    var bytes: Int { arena.count }

    init(source: String, vector: Bool, arena: ByteArena) {
        self.source = source
        self.vector = vector
        self.arena = arena
    }

    mutating func append(z: Int, column: Int, tmsRow: Int, storedY: Int, _ data: StoredBytes) {
        let stored = arena.append(data.bytes)
        tiles.append(Tile(z: z, column: column, tmsRow: tmsRow, storedY: storedY, stored: stored, compressed: data.compressed))
    }

    /// Where one tile's export bytes are: a range of the arena (its stored bytes or its deflate
    /// stream) or of `made`, and the gzip frame around it when there is one.
    struct Export: Sendable {
        var body: Range<Int>
        var inMade: Bool
        var frame: [UInt8]
    }

    /// Checks every tile and finds its export bytes: nil for a tile whose bytes cannot be made
    /// (a problem names it), left out of the hash. Bytes made anew go to `made`. Without `gzip`,
    /// vector tiles are not parsed (the background hash inflates, which checks them enough).
    func prepare(into problems: ProblemList, made: ByteArena, inflater: Inflater, gzip: Inflater?) -> [Export?] {
        arena.withBytes { all in
            tiles.map { tile in
                let stored = UnsafeRawBufferPointer(rebasing: all[tile.stored])
                do {
                    return try MBTilesTiles.withExportBytes(
                        StoredBytes(bytes: stored, compressed: tile.compressed), vector: vector, inflater: inflater
                    ) { export in
                        if vector, let gzip, let problem = problem(ofContent: export.content ?? stored, gzip) {
                            report(tile, problem, problems)
                        }
                        return place(export, stored: stored, offset: tile.stored.lowerBound, made: made)
                    }
                } catch {
                    report(tile, tile.compressed ? "marked compressed but does not inflate: \(error)" : "\(error)", problems)
                    return nil
                }
            }
        }
    }

    /// Feeds the prepared tiles to `hash` in their order.
    func hash(_ exports: [Export?], made: ByteArena, into hash: inout TileSetHash) {
        arena.withBytes { all in
            made.withBytes { side in
                for (tile, export) in zip(tiles, exports) {
                    guard let export else { continue }
                    let body = UnsafeRawBufferPointer(rebasing: (export.inMade ? side : all)[export.body])
                    export.frame.withUnsafeBytes { frame in
                        let head = UnsafeRawBufferPointer(rebasing: frame.prefix(frame.count >= 18 ? 10 : 0))
                        let tail = UnsafeRawBufferPointer(rebasing: frame.dropFirst(head.count))
                        hash.add(z: tile.z, column: tile.column, tmsRow: tile.tmsRow,
                                 export: ExportBytes(head, body, tail, content: nil))
                    }
                }
            }
        }
    }

    private func place(_ export: ExportBytes, stored: UnsafeRawBufferPointer, offset: Int, made: ByteArena) -> Export {
        let frame = Array(export.head) + Array(export.tail)
        if let start = stored.baseAddress, let body = export.body.baseAddress, body >= start,
           body + export.body.count <= start + stored.count {
            let from = offset + (body - start)
            return Export(body: from..<(from + export.body.count), inMade: false, frame: frame)
        }
        return Export(body: made.append(export.body), inMade: true, frame: frame)
    }

    private func report(_ tile: Tile, _ problem: String, _ problems: ProblemList) {
        problems.add("tile \(tile.z)/\(tile.column)/\(tile.storedY) of source \(source): \(problem)")
    }

    /// A vector tile's content (gzipped or not) parses as one.
    private func problem(ofContent content: UnsafeRawBufferPointer, _ gzip: Inflater) -> String? {
        guard Zlib.isGzip(content) else { return VectorTileCheck.problem(in: content).map { "not a vector tile: \($0)" } }
        do {
            return try gzip.withInflated(content) { VectorTileCheck.problem(in: $0).map { "not a vector tile: \($0)" } }
        } catch {
            return "its gzip does not inflate: \(error)"
        }
    }
}
