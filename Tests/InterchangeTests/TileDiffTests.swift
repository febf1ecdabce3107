import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

@testable import Interchange

/// `TileDiff` on MBTiles files written here: martin's own test case gives martin's patch row for
/// row; a side whose walk fails leaves no file; each side is read on a thread of its own through
/// a hand-off that holds a few batches at most, and ends when the diff stops early.
final class TileDiffTests: PackFSTestCase {

    /// martin's `mbtiles/tests/copy.rs` (v1, v2 and their `dif`, commit 39ac533): edits, an
    /// empty tile made non-empty and the reverse, removals, additions, metadata edited, added and
    /// removed. The expected rows and hashes are its `copy__databases@flat__dif` snapshot.
    func testMartinsCopyTestGivesMartinsPatch() throws {
        let v1 = ["md-same": "value - same", "md-edit": "value - v1", "md-remove": "value - remove"]
        let old = try file("v1", metadata: v1, tiles: [
            (3, 6, 7, "root"), (5, 0, 0, "same"), (5, 0, 1, ""), (5, 1, 1, "edit-v1"), (5, 1, 2, ""),
            (5, 1, 3, "non-empty"), (5, 2, 2, "remove"), (5, 2, 3, ""), (6, 0, 3, "same"), (6, 1, 4, "edit-v1"),
            (6, 0, 5, "1-keep-1-rm"), (6, 2, 6, "1-keep-1-rm"),
        ])
        let new = try file("v2", metadata: ["md-same": "value - same", "md-edit": "value - v2", "md-new": "value - new"], tiles: [
            (3, 6, 7, "root"), (5, 0, 0, "same"), (5, 0, 1, ""), (5, 1, 1, "edit-v2"), (5, 1, 2, "not-empty"),
            (5, 1, 3, ""), (6, 0, 3, "same"), (6, 1, 4, "edit-v2a"), (6, 0, 5, "1-keep-1-rm"), (5, 3, 7, "new"),
            (5, 3, 8, "new"),
        ])
        let out = temp.path("dif.mbtiles")
        let summary = try diff(old, new, to: out)
        XCTAssertEqual(try rows(out), [
            "5/1/1 edit-v2", "5/1/2 not-empty", "5/1/3 ", "5/2/2 NULL", "5/2/3 NULL", "5/3/7 new", "5/3/8 new",
            "6/1/4 edit-v2a", "6/2/6 NULL",
        ])
        XCTAssertEqual(try metadata(out), [
            "agg_tiles_hash=B86122579EDCDD4C51F3910894FCC1A1", "agg_tiles_hash_after_apply=3BCDEE3F52407FF1315629298CB99133",
            "agg_tiles_hash_before_apply=9ED9178D7025276336C783C2B54D6258", "md-edit=value - v2", "md-new=value - new",
            "md-remove=NULL",
        ])
        XCTAssertEqual(
            summary,
            DiffSummary(
                path: out, changed: 4, added: 2, deleted: 3, oldTiles: 12, newTiles: 11,
                beforeApply: "9ED9178D7025276336C783C2B54D6258", afterApply: "3BCDEE3F52407FF1315629298CB99133",
                hash: "B86122579EDCDD4C51F3910894FCC1A1"))
    }

    /// martin's `dif_empty`: a tile set against its copy.
    func testATileSetAgainstItselfIsAPatchWithoutTiles() throws {
        let old = try file("one", metadata: ["name": "one"], tiles: [(0, 0, 0, "a"), (1, 1, 0, "b")])
        let out = temp.path("empty.mbtiles")
        let summary = try diff(old, old, to: out)
        XCTAssertEqual(try rows(out), [])
        XCTAssertEqual(summary.hash, "D41D8CD98F00B204E9800998ECF8427E")
        XCTAssertEqual(summary.beforeApply, summary.afterApply)
        XCTAssertEqual(try metadata(out).filter { !$0.hasPrefix("agg_tiles_hash") }, [])
    }

    /// A side whose tiles fail to read halfway: the error is the side's, and OUT does not exist,
    /// nor does anything hidden beside it.
    func testAWalkThatFailsLeavesNoFile() throws {
        let old = try file("old", metadata: [:], tiles: [(0, 0, 0, "a")])
        let failing = GeneratedSide(label: "failing", count: 5_000, failAt: 3_000)
        let out = temp.path("out.mbtiles")
        XCTAssertThrowsError(try TileDiff(old: FileDiffSide(path: old), new: failing).write(to: out)) { error in
            XCTAssertEqual(error as? InterchangeError, .damaged("failing", detail: "tile 3000 does not read"))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path), ["old.mbtiles"])
    }

    /// The walk runs on its own thread and, while the reader holds its first batch, fills the
    /// hand-off and one batch more and waits; stopped early, it ends without reading the rest.
    func testTheWalkWaitsAFewBatchesAheadAndEndsWhenStopped() throws {
        let side = GeneratedSide(label: "many", count: 1_000_000, failAt: nil)
        var stream = TileStream(side)
        XCTAssertEqual(try stream.next()?.place, side.place(0))
        let ahead = (TileHandoff.depth + 2) * TileHandoff.batchTiles
        // The walk may still be waking from a wait that the first take ended: it waits again
        // once it has made the batch after the hand-off's.
        let deadline = Date().addingTimeInterval(10)
        while !(stream.walkWaits && side.produced.withLock({ $0 }) >= ahead), Date() < deadline { usleep(1_000) }
        XCTAssertTrue(stream.walkWaits)
        XCTAssertEqual(side.produced.withLock { $0 }, ahead)
        for index in 1..<20_000 {
            XCTAssertEqual(try stream.next()?.place, side.place(index))
        }
        stream.stop()
        XCTAssertEqual(side.ended.withLock { $0 }, true)
        XCTAssertLessThanOrEqual(side.produced.withLock { $0 }, 20_000 + ahead)
        XCTAssertEqual(side.walkedOnMainThread.withLock { $0 }, false)
    }

    /// A `tiles` table without the unique index may hold a place twice: refused, naming it.
    func testAPlaceHeldTwiceIsRefused() throws {
        let twice = temp.path("twice.mbtiles")
        let queue = try DatabaseQueue(path: twice)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE metadata (name text, value text);
                CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
                INSERT INTO tiles VALUES (1, 0, 1, X'01'), (1, 0, 1, X'02');
                """)
        }
        try queue.close()
        let one = try file("one", metadata: [:], tiles: [(0, 0, 0, "a")])
        XCTAssertThrowsError(try diff(one, twice, to: temp.path("out.mbtiles"))) { error in
            XCTAssertEqual("\(error)", "\(twice): tile 1/0/1 (TMS row) is there twice: a diff needs one tile per place")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("out.mbtiles")))
    }

    /// A file made at OUT while the patch was being written is kept, and the patch dropped.
    func testAFileThatAppearsAtOUTMeanwhileIsKept() throws {
        let out = temp.path("out.mbtiles")
        XCTAssertThrowsError(try MBTilesWriter.write(to: out, replacing: false) { inserter in
            try inserter.insert(z: 0, column: 0, row: 0, data: Data([1]))
            try Data("someone else's".utf8).write(to: URL(fileURLWithPath: out))
            return []
        }) { error in
            XCTAssertEqual(error as? InterchangeError, .invalidDestination(out, reason: ExportPlacement.takenReason))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), Data("someone else's".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path), ["out.mbtiles"])
    }

    // MARK: - Helpers

    private func diff(_ old: String, _ new: String, to out: String) throws -> DiffSummary {
        let (oldSide, newSide) = (try FileDiffSide(path: old), try FileDiffSide(path: new))
        defer {
            oldSide.close()
            newSide.close()
        }
        return try TileDiff(old: oldSide, new: newSide).write(to: out)
    }

    /// A flat MBTiles file with these rows, their data texts as martin's test writes them (CAST AS
    /// BLOB: an empty text is an empty blob, not NULL).
    private func file(_ name: String, metadata: [String: String], tiles: [(Int, Int, Int, String)]) throws -> String {
        try makeMBTiles("\(name).mbtiles", metadata: metadata, tiles: tiles.map { ($0.0, $0.1, $0.2, Data($0.3.utf8)) })
    }

    /// The patch's tile rows as `z/x/y text`, NULL data as `NULL`.
    private func rows(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM tiles ORDER BY 1, 2, 3").map { row in
                let data = (row[3] as Data?).map { String(decoding: $0, as: UTF8.self) } ?? "NULL"
                return "\(row[0] as Int)/\(row[1] as Int)/\(row[2] as Int) \(data)"
            }
        }
    }

    private func metadata(_ path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT name, value FROM metadata ORDER BY name").map { row in
                "\(row[0] as String)=\((row[1] as String?) ?? "NULL")"
            }
        }
    }
}

/// A side of `count` tiles made as they are read (one per column of zoom 20), counting how far
/// the walk got; with `failAt`, it throws there.
private final class GeneratedSide: DiffSide {
    let label: String
    let format: String? = nil
    let count: Int
    let failAt: Int?
    let produced = LockedState(0)
    let walkedOnMainThread = LockedState<Bool?>(nil)
    let ended = LockedState(false)

    init(label: String, count: Int, failAt: Int?) {
        self.label = label
        self.count = count
        self.failAt = failAt
    }

    func place(_ index: Int) -> TilePlace { TilePlace(z: 20, column: index, row: 7) }

    func forEachTile(_ body: (DiffTile) throws -> Void) throws {
        walkedOnMainThread.withLock { $0 = Thread.isMainThread }
        defer { ended.withLock { $0 = true } }
        for index in 0..<count {
            if index == failAt { throw InterchangeError.damaged(label, detail: "tile \(index) does not read") }
            produced.withLock { $0 += 1 }
            try body(DiffTile(place: place(index), data: Data("tile \(index)".utf8)))
        }
    }

    func metadata(after walk: SideWalk) -> [String: String] { [:] }
    func close() {}
}
