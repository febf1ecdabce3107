import Downloader
import Foundation
import PackLifecycle
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// `remove`, `setActive(false)` and `stop` never wait on the network: against an origin that
/// sits 30 s on every answer, with a download waiting for the style and a refresh queued behind
/// it, each returns at once and the queued refresh never sends a request.
final class SlowOriginTests: LifecycleTestCase {
    static let delay = 30.0
    var style: String { "/styles/bright.json" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "\(Self.delay)"])
        makeManager()
    }

    /// A download under way (its style request arrived and waits), and a refresh queued.
    func downloadWaitingWithARefreshQueued() throws -> Pack {
        let pack = try submit("slow")
        try wait(for: "the style request to arrive") { try self.server.arrivals().map(\.uri) == [self.style] }
        try manager.refresh(pack.id)
        XCTAssertEqual(events.runsEnded(pack.id), [], "the download still waits")
        return pack
    }

    /// A region file writes its pack's state once, in the transaction that defines the pack:
    /// neither the manager queueing the download nor the run starting writes it again. (The run
    /// waits for the style: nothing else is written meanwhile.)
    func testARegionFileWritesItsStateOnce() throws {
        try countStateWrites()
        let pack = try submit("slow")
        try wait(for: "the style request to arrive") { try self.server.arrivals().map(\.uri) == [self.style] }
        XCTAssertEqual(try stateWrites(), ["\(pack.id.rawValue) active"])
    }

    /// A trigger in the file records every row written into the state table.
    private func countStateWrites() throws {
        try database.write { batch in
            try Migrations.ensureBookkeeping(batch.database)
            try batch.database.execute(sql: """
                CREATE TABLE test_state_writes (region_id INTEGER, state TEXT);
                CREATE TRIGGER test_state_write AFTER INSERT ON packfs_pack_state
                  BEGIN INSERT INTO test_state_writes VALUES (NEW.region_id, NEW.state); END;
                """)
        }
    }

    private func stateWrites() throws -> [String] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT region_id, state FROM test_state_writes ORDER BY rowid").map { row in
                "\(row[0] as Int64) \(row[1] as String)"
            }
        }
    }

    func testRemoveReturnsAtOnceAndTheQueuedRefreshNeverRuns() throws {
        let pack = try downloadWaitingWithARefreshQueued()
        let elapsed = try seconds { try manager.remove(pack.id) }
        print("remove with a download waiting on a \(Self.delay) s origin and a refresh queued: \(String(format: "%.3f", elapsed)) s")
        XCTAssertLessThan(elapsed, 5)
        XCTAssertThrowsError(try database.pack(id: pack.id))
        XCTAssertEqual(try database.packs().count, 0)
        XCTAssertEqual(events.runsEnded(pack.id), [.download], "the cut download ended; no refresh ran")
        XCTAssertEqual(try server.arrivals().map(\.uri), [style], "the refresh sent nothing")
    }

    func testStopReturnsAtOnceRecordsTheDownloadAndDropsTheRefresh() throws {
        let pack = try downloadWaitingWithARefreshQueued()
        let elapsed = seconds { manager.stop() }
        print("stop with a download waiting on a \(Self.delay) s origin and a refresh queued: \(String(format: "%.3f", elapsed)) s")
        XCTAssertLessThan(elapsed, 5)
        XCTAssertEqual(try state(pack), .active, "recorded for resumption")
        XCTAssertEqual(events.runsEnded(pack.id), [.download], "the cut download ended; no refresh ran")
        XCTAssertEqual(try server.arrivals().map(\.uri), [style], "the refresh sent nothing")
    }

    func testSuspendDuringTheStyleFetchDoesNotWaitForTheAnswer() throws {
        let pack = try submit("slow")
        try wait(for: "the style request to arrive") { try self.server.arrivals().count == 1 }
        let elapsed = try seconds {
            try manager.setActive(pack.id, false)
            try wait(for: "the run to end", timeout: Self.delay / 2) { self.events.runsEnded(pack.id) == [.download] }
        }
        XCTAssertLessThan(elapsed, 5)
        XCTAssertEqual(try state(pack), .inactive)
    }

    /// `PackDownload` itself: suspended before `run()`, it sends nothing and returns at once.
    func testADownloadSuspendedBeforeItRunsSendsNothing() throws {
        let pack = try database.createPack(name: "never", definition: RegionFile.parse(regionFile()).definition)
        let download = PackDownload(database: database, region: pack.id, definition: try XCTUnwrap(pack.definition))
        download.suspend()
        var status: PackStatus?
        let elapsed = seconds { status = download.run() }
        XCTAssertLessThan(elapsed, 5)
        XCTAssertEqual(status?.state, .inactive)
        XCTAssertEqual(try server.arrivals().count, 0)
    }
}
