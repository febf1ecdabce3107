import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// The switch of a large refresh holds no reader (docs/design.md §1: readers never wait for the writer):
/// in a session (a mount: WAL), the mount's raw readers read the switched pack and another one
/// throughout the switch's one transaction, the old bytes until it commits, each read within
/// 100 ms. `PACKFS_SWITCH_TILES` sets the staged tiles (default 20,000; docs/benchmarks.md's figures are
/// of larger runs). CI's three shards share two cores, so a thread may wait for one: there the
/// longest read may take 0.5 s (a reader the switch held would wait as long as the switch); a
/// run given `PACKFS_SWITCH_TILES` holds it to 100 ms.
final class SwitchReadersTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    private var chosen: Int? { ProcessInfo.processInfo.environment["PACKFS_SWITCH_TILES"].flatMap(Int.init) }
    private var tiles: Int { chosen.map { max($0, 1) } ?? 20_000 }

    func testReadersOfEveryPackGoOnWhileTheSwitchOfALargeRefreshRuns() throws {
        let (p, q) = try makePacks(tiles: tiles)
        let since = try database.requestRefresh(of: p.region)
        try stage(tiles: tiles, for: p.region, since: since)
        let reader = TimedReader(database: database, packs: [p, q])
        reader.start()
        defer { reader.stop() }
        XCTAssertTrue(eventually(timeout: 10) { reader.reads > 100 }, "the reader runs")
        let started = Date()
        let switched = try database.write(notBefore: since) { batch -> SwitchedContent in
            let switched = try batch.switchStaged(of: p.region, since: since)
            try readInsideTheOpenTransaction(p)
            return switched
        }
        let ended = Date()
        let elapsed = ended.timeIntervalSince(started)
        reader.stop()
        let during = reader.longest(overlapping: started...ended)
        XCTAssertEqual(switched.tiles, tiles)
        XCTAssertEqual(try database.servedTile(.row(p.ids[0]), in: p.region)?.content, Self.content(0, version: 1))
        print(String(format: "switch of %d staged tiles: %.3f s; reads meanwhile: %d, longest %.1f ms; reads before: longest %.1f ms",
                     tiles, elapsed, during.reads, during.longest * 1000, reader.longest(before: started) * 1000))
        XCTAssertGreaterThan(during.reads, 0, "reads went on during the switch")
        XCTAssertLessThan(during.longest, chosen == nil ? 0.5 : 0.1, "no read held")
    }

    /// While the switch's transaction is open (all its work done, not committed), a reader on
    /// another thread reads at once, and reads the old bytes: it waits for nothing.
    private func readInsideTheOpenTransaction(_ pack: Pack) throws {
        let read = LockedState<Data??>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [database] in
            read.withLock { $0 = try? database?.servedTile(.row(pack.ids[0]), in: pack.region)?.content }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a reader waited for the open switch")
        XCTAssertEqual(read.withLock { $0 }, Self.content(0, version: 0), "the old bytes until the commit")
    }

    struct Pack {
        var region: RegionID
        var ids: [TileID]
    }

    /// p with `tiles` tiles, q with a quarter as many of another template.
    private func makePacks(tiles: Int) throws -> (Pack, Pack) {
        func make(_ name: String, _ count: Int, template: String) throws -> Pack {
            let region = try database.createPack(name: name, definition: definition()).id
            var ids: [TileID] = []
            for start in stride(from: 0, to: count, by: 10_000) {
                ids += try database.write { batch in
                    try (start..<min(start + 10_000, count)).map { x in
                        let id = try batch.putTile(key(x, template), data: .encoding(Self.content(x, version: 0)), headers: CacheHeaders())
                        try batch.link(tile: id, to: region)
                        return id
                    }
                }
            }
            return Pack(region: region, ids: ids)
        }
        return (try make("p", tiles, template: "http://h/p/{z}/{x}/{y}.pbf"),
                try make("q", max(tiles / 4, 1), template: "http://h/q/{z}/{x}/{y}.pbf"))
    }

    private func stage(tiles: Int, for region: RegionID, since: Int64) throws {
        for start in stride(from: 0, to: tiles, by: 10_000) {
            try database.write(notBefore: since) { batch in
                for x in start..<min(start + 10_000, tiles) {
                    try batch.stageTile(key(x, "http://h/p/{z}/{x}/{y}.pbf"), data: .encoding(Self.content(x, version: 1)),
                                        headers: CacheHeaders(), contentSize: 1024, for: region, since: since)
                }
            }
        }
    }

    private func key(_ index: Int, _ template: String) -> TileKey {
        TileKey(urlTemplate: template, pixelRatio: 1, z: 16, x: index % 65_536, y: index / 65_536)
    }

    /// 1 KiB that deflates to about half (text-like: a few distinct bytes). A tile's bytes depend
    /// on its index only modulo 23: the 23 of each version are made once (made per tile, under
    /// ThreadSanitizer, they took 40% of the test's time).
    static func content(_ index: Int, version: Int) -> Data {
        version < contents.count ? contents[version][index % 23] : made(index % 23, version: version)
    }

    private static let contents: [[Data]] = (0...1).map { version in (0..<23).map { made($0, version: version) } }

    private static func made(_ residue: Int, version: Int) -> Data {
        Data((0..<1024).map { UInt8(truncatingIfNeeded: ($0 * 7 + residue) % 23 + version * 40) })
    }

    private func definition() -> RegionDefinition {
        RegionDefinition(styleURL: "http://h/style.json", area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)),
                         minZoom: 0, maxZoom: 16)
    }
}

/// Reads random tiles of the packs through the mount's raw readers on a thread of its own and
/// times each read.
final class TimedReader: @unchecked Sendable {  // `samples`, `stopped` are guarded by `lock`
    private let database: OfflineDatabase
    private let packs: [SwitchReadersTests.Pack]
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var stopped = false
    private var running = false
    /// (start, seconds) of each read.
    private var samples: [(start: Date, seconds: Double)] = []

    init(database: OfflineDatabase, packs: [SwitchReadersTests.Pack]) {
        self.database = database
        self.packs = packs
    }

    var reads: Int { lock.withLock { samples.count } }

    func start() {
        lock.withLock { running = true }
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopped }) {
                let pack = packs[Int.random(in: 0..<packs.count)]
                let id = pack.ids[Int.random(in: 0..<pack.ids.count)]
                let start = Date()
                _ = try? database.servedTile(.row(id), in: pack.region)?.content
                let seconds = Date().timeIntervalSince(start)
                lock.withLock { samples.append((start, seconds)) }
            }
            done.signal()
        }
    }

    func stop() {
        let wait = lock.withLock { () -> Bool in
            defer { stopped = true; running = false }
            return running
        }
        if wait { done.wait() }
    }

    /// Reads that ran at some moment of `interval`, and the longest of them.
    func longest(overlapping interval: ClosedRange<Date>) -> (reads: Int, longest: Double) {
        lock.withLock {
            let overlapping = samples.filter {
                $0.start <= interval.upperBound && $0.start.addingTimeInterval($0.seconds) >= interval.lowerBound
            }
            return (overlapping.count, overlapping.map(\.seconds).max() ?? 0)
        }
    }

    func longest(before time: Date) -> Double {
        lock.withLock { samples.filter { $0.start < time }.map(\.seconds).max() ?? 0 }
    }
}
