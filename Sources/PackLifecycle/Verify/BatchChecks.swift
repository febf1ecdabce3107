import Dispatch
import Foundation
import PackStore
import StyleModel

/// Tiles read together, checked together: their stored bytes copied end to end into one buffer
/// (a `Data` per tile was an allocation and a release per tile on both threads).
struct TileBatch: Sendable {
    struct Tile: Sendable {
        var z: Int
        var column: Int
        var storedY: Int
        var range: Range<Int>
        var compressed: Bool
    }

    let source: String
    let vector: Bool
    private(set) var tiles: [Tile] = []
    /// The tiles' stored bytes (`BatchChecks.arena`).
    let arena: ByteArena
    var bytes: Int { arena.count }

    init(source: String, vector: Bool, arena: ByteArena) {
        self.source = source
        self.vector = vector
        self.arena = arena
    }

    mutating func append(z: Int, column: Int, storedY: Int, _ data: StoredBytes) {
        tiles.append(Tile(z: z, column: column, storedY: storedY, range: arena.append(data.bytes), compressed: data.compressed))
    }

    /// Each tile inflates where marked compressed; a vector tile (gzipped or not) parses.
    func check(into problems: ProblemList) {
        let content = Inflater()
        let gzip = Inflater()
        arena.withBytes { all in
            for tile in tiles {
                let bytes = UnsafeRawBufferPointer(rebasing: all[tile.range])
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

/// The checks of a walk's batches, on one thread beside the walk's (two batches at most wait
/// for it; past that the walk's thread checks a batch itself rather than wait).
final class BatchChecks: Sendable {
    private let queue = DispatchQueue(label: "packfs.verify.checks")
    private let slots = DispatchSemaphore(value: 2)
    private let group = DispatchGroup()
    private let problems: ProblemList
    private let done: LockedState<Int>
    /// Buffers of checked batches, kept for the next ones: a fresh 4 MiB buffer per batch was
    /// page faults on every byte of the pack (a sixth of a large-tile verify's time).
    private let spares = LockedState([ByteArena]())
    private let arenaBytes: Int

    init(problems: ProblemList, done: LockedState<Int>, arenaBytes: Int) {
        self.problems = problems
        self.done = done
        self.arenaBytes = arenaBytes
    }

    /// An empty buffer for the next batch.
    func arena() -> ByteArena {
        spares.withLock { $0.popLast() } ?? ByteArena(capacity: arenaBytes)
    }

    func submit(_ batch: TileBatch) {
        guard !batch.tiles.isEmpty else { return }
        guard slots.wait(timeout: .now()) == .success else {
            check(batch)
            return
        }
        queue.async(group: group) { [self] in
            check(batch)
            slots.signal()
        }
    }

    func outside(_ source: String) {
        problems.add("source \(source): a stored tile lies outside the tile grid (zooms 0 to \(MBTilesTiles.deepestZoom))")
    }

    /// Waits for the batches submitted.
    func finish() { group.wait() }

    private func check(_ batch: TileBatch) {
        batch.check(into: problems)
        batch.arena.reset()
        // As many as can be in use at once (one filling, two waiting, one checked on each thread).
        spares.withLock { if $0.count < 4 { $0.append(batch.arena) } }
        done.withLock { $0 += batch.tiles.count }
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
