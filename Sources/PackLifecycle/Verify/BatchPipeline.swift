import Dispatch
import PackStore
import StyleModel

/// What happens to a walk's batches beside the walk: each is hashed on a serial queue, in the
/// walk's order (MD5 is one stream), then checked on a concurrent one (the checks need no
/// order), so the walk (SQLite), the hash and the checks share the cores: with the walk's
/// thread doing the hash too, it was the bottleneck for small tiles and the checks for large
/// ones. At most `inFlight` batches exist at once: the walk waits for a buffer past that.
final class BatchPipeline: Sendable {
    private let hashing = DispatchQueue(label: "packfs.verify.hash")
    private let checking = DispatchQueue(label: "packfs.verify.checks", attributes: .concurrent)
    private let group = DispatchGroup()
    private let buffers: DispatchSemaphore
    /// Buffers of finished batches, for the next ones: allocated (and their pages faulted in)
    /// once per verify, not once per batch (a sixth of a large-tile verify's time).
    private let spares = LockedState([ByteArena]())
    private let hash = LockedState(TileSetHash())
    private let problems: ProblemList
    private let done: LockedState<Int>
    private let arenaBytes: Int

    init(problems: ProblemList, done: LockedState<Int>, arenaBytes: Int, inFlight: Int = 4) {
        self.problems = problems
        self.done = done
        self.arenaBytes = arenaBytes
        buffers = DispatchSemaphore(value: inFlight)
    }

    /// An empty buffer for the next batch; waits while `inFlight` batches are under way.
    func arena() -> ByteArena {
        buffers.wait()
        return spares.withLock { $0.popLast() } ?? ByteArena(capacity: arenaBytes)
    }

    /// Hands a batch on (its buffer from `arena()`).
    func submit(_ batch: TileBatch) {
        hashing.async(group: group) { [self] in
            // The lock is uncontended: only this queue and `finish` (after the group) take it.
            hash.withLock { batch.hash(into: &$0) }
            checking.async(group: group) { [self] in
                batch.check(into: problems)
                batch.arena.reset()
                spares.withLock { $0.append(batch.arena) }
                buffers.signal()
                done.withLock { $0 += batch.tiles.count }
            }
        }
    }

    func outside(_ source: String) {
        problems.add("source \(source): a stored tile lies outside the tile grid (zooms 0 to \(MBTilesTiles.deepestZoom))")
    }

    /// Waits for the batches submitted; the hash of their tiles.
    func finish() -> TileSetHash {
        group.wait()
        return hash.withLock { $0 }
    }
}

/// Problems found, the first few kept in words, all counted (from any thread).
final class ProblemList: Sendable {
    private let state = LockedState((lines: [String](), count: 0))
    private let keeping: Int

    init(keeping: Int) { self.keeping = keeping }

    func add(_ line: String) {
        state.withLock { state in
            if state.lines.count < keeping { state.lines.append(line) }
            state.count += 1
        }
    }

    var snapshot: ([String], Int) { state.withLock { ($0.lines, $0.count) } }
}
