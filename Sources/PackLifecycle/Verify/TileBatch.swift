import FoundationEssentials
import PackStore
import StyleModel

/// Tiles read together, hashed and checked together: their stored bytes copied end to end into
/// one buffer (a `Data` per tile was an allocation and a release per tile on every thread), and
/// where MBTiles holds other bytes than the store (a raw vector tile gzipped, a compressed one
/// inflated), those bytes too, made on the walk's thread.
struct TileBatch: Sendable {
    struct Tile: Sendable {
        var z: Int
        var column: Int
        var tmsRow: Int
        var storedY: Int
        var stored: Range<Int>
        var compressed: Bool
        /// The bytes MBTiles holds; nil when they cannot be made (the check names why).
        var hashed: Range<Int>?
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
        var hashed: Range<Int>? = stored
        if !MBTilesTiles.isAsStored(data, vector: vector) {
            hashed = (try? MBTilesTiles.data(data.stored, vector: vector)).map { made in made.withUnsafeBytes { arena.append($0) } }
        }
        tiles.append(Tile(z: z, column: column, tmsRow: tmsRow, storedY: storedY, stored: stored, compressed: data.compressed, hashed: hashed))
    }

    /// Feeds the tiles to `hash` in their order (those whose MBTiles bytes could not be made are
    /// left out: the check names them).
    func hash(into hash: inout TileSetHash) {
        arena.withBytes { all in
            for tile in tiles {
                guard let hashed = tile.hashed else { continue }
                hash.add(z: tile.z, column: tile.column, tmsRow: tile.tmsRow, bytes: UnsafeRawBufferPointer(rebasing: all[hashed]))
            }
        }
    }

    /// Each tile inflates where marked compressed; a vector tile (gzipped or not) parses.
    func check(into problems: ProblemList) {
        let content = Inflater()
        let gzip = Inflater()
        arena.withBytes { all in
            for tile in tiles {
                let bytes = UnsafeRawBufferPointer(rebasing: all[tile.stored])
                if let problem = problem(of: bytes, compressed: tile.compressed, content, gzip) {
                    problems.add("tile \(tile.z)/\(tile.column)/\(tile.storedY) of source \(source): \(problem)")
                }
            }
        }
    }

    private func problem(of stored: UnsafeRawBufferPointer, compressed: Bool, _ content: Inflater, _ gzip: Inflater) -> String? {
        guard compressed else { return vector ? problem(ofContent: stored, gzip) : nil }
        do {
            return try content.withInflated(stored) { vector ? problem(ofContent: $0, gzip) : nil }
        } catch {
            return "marked compressed but does not inflate: \(error)"
        }
    }

    private func problem(ofContent content: UnsafeRawBufferPointer, _ gzip: Inflater) -> String? {
        guard MBTilesTiles.isGzip(content) else { return VectorTileCheck.problem(in: content).map { "not a vector tile: \($0)" } }
        do {
            return try gzip.withInflated(content) { VectorTileCheck.problem(in: $0).map { "not a vector tile: \($0)" } }
        } catch {
            return "its gzip does not inflate: \(error)"
        }
    }
}
