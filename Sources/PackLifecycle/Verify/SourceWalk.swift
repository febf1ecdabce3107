import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// One tiled source's tiles walked in batches through `BatchPipeline`: what `packfs verify` and the
/// background hash (`PackHasher`) both do to a pack's tiles.
struct SourceWalk {
    /// How much of a pack a walk holds at once: the bytes of tiles in a batch, and the batches under way
    /// (each with the export bytes made from it).
    struct Budget: Sendable {
        var batchBytes: Int
        var inFlight: Int

        /// What a user waits for (`packfs verify`, a command's hash): up to about 40 MB.
        static let command = Budget(batchBytes: 4 << 20, inFlight: 4)
        /// A mount's background hash, beside its readers and downloads: a few MB, so that the daemon's peak
        /// stays where its readers and downloads put it (docs/benchmarks.md, "Size and memory").
        static let background = Budget(batchBytes: 512 << 10, inFlight: 2)
    }

    let database: OfflineDatabase
    let problems: ProblemList
    let done: LockedState<Int>
    /// Whether vector tiles are parsed too (verify), or only inflated (the hash).
    let checks: Bool
    var budget = Budget.command
    /// Asked between pages: true stops the walk (`SourceWalk.Cancelled`).
    var cancelled: () -> Bool = { false }

    struct Cancelled: Error {}

    /// The source's hash; the places of its tiles go to `keys` when it is not nil.
    func run(_ source: PackStyle.Source, vector: Bool, keys: inout Set<UInt64>?, tick: () -> Void = {}) throws -> TileSetHash {
        // Room for the tile that takes a batch past its size.
        let pipeline = BatchPipeline(
            problems: problems, done: done, arenaBytes: budget.batchBytes * 5 / 4, checks: checks, inFlight: budget.inFlight)
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
            if batch.bytes >= budget.batchBytes {
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
