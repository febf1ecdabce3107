import Basics
import Dispatch
import PackStore
import StyleModel

/// A walk's batches beside the walk: prepared on a concurrent queue, hashed on a serial one in order
/// (MD5 is one stream), so walk, inflate and hash share the cores. Past `inFlight` batches the walk waits.
final class BatchPipeline: Sendable {
    private let hashing = DispatchQueue(label: "packfs.verify.hash")
    private let checking = DispatchQueue(label: "packfs.verify.checks", attributes: .concurrent)
    private let group = DispatchGroup()
    private let buffers: DispatchSemaphore
    /// Buffers of finished batches, reused: allocated (and faulted in) once per verify.
    private let spares = LockedState([ByteArena]())
    /// Inflaters of finished preparations, one per worker at a time.
    private let inflaters = LockedState([(Inflater, Inflater)]())
    private let hash = LockedState(TileSetHash())
    private let problems: ProblemList
    private let done: LockedState<Int>
    private let arenaBytes: Int
    private let checks: Bool

    init(problems: ProblemList, done: LockedState<Int>, arenaBytes: Int, checks: Bool = true, inFlight: Int = 4) {
        self.problems = problems
        self.done = done
        self.arenaBytes = arenaBytes
        self.checks = checks
        buffers = DispatchSemaphore(value: inFlight)
    }

    /// An empty buffer for the next batch; waits while `inFlight` batches are under way.
    func arena() -> ByteArena {
        buffers.wait()
        return spare()
    }

    private func spare() -> ByteArena { spares.withLock { $0.popLast() } ?? ByteArena(capacity: arenaBytes) }

    /// Returns a buffer from `arena()`: its batch hashed, or none handed on.
    func giveBack(_ arena: ByteArena) {
        arena.reset()
        spares.withLock { $0.append(arena) }
        buffers.signal()
    }

    /// Hands a batch on (its buffer from `arena()`).
    func submit(_ batch: TileBatch) {
        let prepared = PreparedExports()
        let made = spare()
        let ready = DispatchGroup()
        checking.async(group: ready) { [self] in
            let pair = inflaters.withLock { $0.popLast() } ?? (Inflater(), Inflater())
            prepared.exports = batch.prepare(into: problems, made: made, inflater: pair.0, gzip: checks ? pair.1 : nil)
            inflaters.withLock { $0.append(pair) }
        }
        hashing.async(group: group) { [self] in
            ready.wait()
            // The lock is uncontended: only this queue and `finish` (after the group) take it.
            hash.withLock { batch.hash(prepared.exports, made: made, into: &$0) }
            made.reset()
            spares.withLock { $0.append(made) }
            giveBack(batch.arena)
            done.withLock { $0 += batch.tiles.count }
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

/// One batch's prepared exports, handed from the worker that made them to the hash queue.
final class PreparedExports: @unchecked Sendable {  // written by one worker before its group leaves; read by the hash queue after waiting on that group
    var exports: [TileBatch.Export?] = []
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
