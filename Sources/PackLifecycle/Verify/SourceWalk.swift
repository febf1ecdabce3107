import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// One tiled source's tiles walked in batches through `BatchPipeline`: what `packfs verify` and the
/// background hash (`PackHasher`) both do to a pack's tiles.
struct SourceWalk {
    /// Bytes of tiles handed to the workers at a time.
    static let batchBytes = 4 << 20

    let database: OfflineDatabase
    let problems: ProblemList
    let done: LockedState<Int>
    /// Whether vector tiles are parsed too (verify), or only inflated (the hash).
    let checks: Bool
    /// Asked between pages: true stops the walk (`SourceWalk.Cancelled`).
    var cancelled: () -> Bool = { false }

    struct Cancelled: Error {}

    /// The source's hash; the places of its tiles go to `keys` when it is not nil.
    func run(_ source: PackStyle.Source, vector: Bool, keys: inout Set<UInt64>?, tick: () -> Void = {}) throws -> TileSetHash {
        let pipeline = BatchPipeline(
            problems: problems, done: done, arenaBytes: Self.batchBytes + (1 << 20), checks: checks)
        var batch = TileBatch(source: source.id, vector: vector, arena: pipeline.arena())
        var finished = false
        defer {
            // A walk cut short (an error, a stop) hands its buffer back unhashed.
            if !finished {
                pipeline.giveBack(batch.arena)
                _ = pipeline.finish()
            }
        }
        try MBTilesTiles.forEachInPlace(
            of: source, in: database, outside: { pipeline.outside(source.id) },
            pageEnd: { if cancelled() { throw Cancelled() } }
        ) { z, column, tmsRow, storedY, stored in
            keys?.insert(PackVerification.key(z: z, x: column, y: storedY))
            batch.append(z: z, column: column, tmsRow: tmsRow, storedY: storedY, stored)
            if batch.bytes >= Self.batchBytes {
                pipeline.submit(batch)
                batch = TileBatch(source: source.id, vector: vector, arena: pipeline.arena())
                tick()
            }
        }
        pipeline.submit(batch)
        finished = true
        return pipeline.finish()
    }
}
