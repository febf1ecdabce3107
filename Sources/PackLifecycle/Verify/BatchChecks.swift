import Dispatch
import Foundation
import PackStore
import StyleModel

/// Tiles read together, checked together.
struct TileBatch: Sendable {
    let source: String
    let vector: Bool
    private(set) var tiles: [MBTilesTiles.Tile] = []
    private(set) var bytes = 0

    init(source: String, vector: Bool) {
        self.source = source
        self.vector = vector
    }

    mutating func append(_ tile: MBTilesTiles.Tile) {
        tiles.append(tile)
        bytes += tile.stored.storedSize
    }

    /// Each tile inflates where marked compressed; a vector tile (gzipped or not) parses.
    func check(into problems: ProblemList) {
        for tile in tiles {
            let place = "tile \(tile.z)/\(tile.column)/\(tile.storedY) of source \(source)"
            let content: Data
            do {
                content = try tile.stored.decoded() ?? Data()
            } catch {
                problems.add("\(place): marked compressed but does not inflate: \(error)")
                continue
            }
            guard vector else { continue }
            var body = content
            if MBTilesTiles.isGzip(content) {
                do {
                    body = try Zlib.decompress(content)
                } catch {
                    problems.add("\(place): its gzip does not inflate: \(error)")
                    continue
                }
            }
            if let problem = VectorTileCheck.problem(in: body) { problems.add("\(place): not a vector tile: \(problem)") }
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

    init(problems: ProblemList, done: LockedState<Int>) {
        self.problems = problems
        self.done = done
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
