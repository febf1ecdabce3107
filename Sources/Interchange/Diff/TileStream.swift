import Basics
import FoundationEssentials
import PackStore

/// One side's tiles pulled one at a time from a walk that calls back (`DiffSide.forEachTile`), run on its own thread
/// with a few batches waiting at most: flat memory, and both sides read while the merge compares and writes.
struct TileStream {
    private let handoff = TileHandoff()
    private var batch: [DiffTile] = []
    private var index = 0

    /// Starts `side`'s walk, which gathers tiles until a batch is full.
    init(_ side: any DiffSide) {
        let handoff = handoff
        do {
            try NativeThread.start(name: "PackFS diff side") {
                var batch: [DiffTile] = []
                var bytes = 0
                do {
                    try side.forEachTile { tile in
                        batch.append(tile)
                        bytes += tile.data.count
                        guard batch.count >= TileHandoff.batchTiles || bytes >= TileHandoff.batchBytes else { return }
                        try handoff.put(batch)
                        (batch, bytes) = ([], 0)
                    }
                    if !batch.isEmpty { try handoff.put(batch) }
                    handoff.end(nil)
                } catch {
                    handoff.end(error)
                }
            }
        } catch {
            handoff.end(error)
        }
    }

    /// The next tile; nil after the last. Throws what the walk threw.
    mutating func next() throws -> DiffTile? {
        while index == batch.count {
            guard let next = try handoff.take() else { return nil }
            (batch, index) = (next, 0)
        }
        defer { index += 1 }
        return batch[index]
    }

    /// Ends the walk if it still runs (the diff stopped early) and waits for its thread: nothing reads a closed side.
    func stop() { handoff.stop() }

    /// Whether the walk waits for room in the hand-off (for tests of its bound).
    var walkWaits: Bool { handoff.walkWaits }
}

/// The hand-off between a walk's thread, which puts batches, and the merge, which takes them.
final class TileHandoff: @unchecked Sendable {  // every stored var is guarded by `condition`
    /// Batches that may wait for the merge.
    static let depth = 4
    /// A batch is full at this many tiles, or bytes of tiles.
    static let batchTiles = 256
    static let batchBytes = 1 << 20

    /// Thrown to the walk once the merge has stopped taking.
    struct Stopped: Error {}

    private let condition = Condition()
    private var waiting: [[DiffTile]] = []
    private var ended = false
    private var failure: (any Error)?
    private var stopped = false
    private var putWaits = false

    /// The walk's: waits while `depth` batches wait.
    func put(_ batch: [DiffTile]) throws {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= Self.depth, !stopped {
            putWaits = true
            condition.wait()
            putWaits = false
        }
        guard !stopped else { throw Stopped() }
        waiting.append(batch)
        condition.broadcast()
    }

    /// The walk's last word: nil when it went through, else why not.
    func end(_ error: (any Error)?) {
        condition.lock()
        defer { condition.unlock() }
        (ended, failure) = (true, error)
        condition.broadcast()
    }

    /// The merge's: the next batch, waiting for it; nil at the end; throws what the walk threw.
    func take() throws -> [DiffTile]? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty, !ended { condition.wait() }
        guard waiting.isEmpty else {
            condition.broadcast()
            return waiting.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    var walkWaits: Bool {
        condition.lock()
        defer { condition.unlock() }
        return putWaits
    }

    /// The merge's: takes no more, wakes the walk (its next `put` throws), waits for its end.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        waiting.removeAll()
        condition.broadcast()
        while !ended { condition.wait() }
    }
}
