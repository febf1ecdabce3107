import Basics
import Downloader
import Foundation
import PackLifecycle
import PackStore
import TestSupport
import XCTest

/// The lifecycle against real origins (nginx, the fault server) and a real session database.
final class PackManagerTests: LifecycleTestCase {
    func testARegionFileCreatesThePackAndDownloadsIt() throws {
        server = try TestServer.nginx()
        makeManager()
        let pack = try submit("helsinki")
        XCTAssertEqual(pack.metadata, .object(["trip": .string("test")]))
        try waitForState(pack, .complete)
        XCTAssertEqual(try database.progress(of: pack.id).completedResources, 322)
        try wait(for: "the run's end event") { self.events.runsEnded(pack.id) == [.download] }
        XCTAssertEqual(try database.packs().map(\.name), ["helsinki"])
    }

    func testAChangedDefinitionConvergesWithoutFetchingAgain() throws {
        server = try TestServer.nginx()
        makeManager()
        let pack = try submit("helsinki")
        try waitForState(pack, .complete)
        let requests = try server.waitForLog(count: 322).count
        try submit("helsinki", maxZoom: 10)
        try wait(for: "the redefined run to end") { self.events.runsEnded(pack.id).count == 2 }
        XCTAssertEqual(try state(pack), .complete)
        XCTAssertEqual(try database.pack(id: pack.id).definition?.maxZoom, 10)
        let left = events.membersLeft(pack.id)
        XCTAssertEqual(left.count, 1)
        XCTAssertFalse(left.first?.tiles.isEmpty ?? true)
        XCTAssertTrue(left.first?.tiles.allSatisfy { $0.z > 10 } ?? false, "only tiles above z10 left")
        let tiles = try database.tileKeys(of: pack.id)
        XCTAssertFalse(tiles.isEmpty)
        XCTAssertTrue(tiles.allSatisfy { $0.z <= 10 })
        XCTAssertEqual(try server.settledAccessLog().count, requests, "nothing stored was fetched again")
    }

    /// Suspension mid-download keeps what is stored; resumption fetches only the rest.
    func testSuspendAndResume() throws {
        server = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
        makeManager(concurrency: 4)
        let pack = try submit("helsinki")
        try wait(for: "some progress") { try self.database.progress(of: pack.id).completedResources > 20 }
        try manager.setActive(pack.id, false)
        try waitForState(pack, .inactive)
        let stored = try database.progress(of: pack.id).completedResources
        XCTAssertLessThan(stored, 322)
        try wait(for: "the suspended run's end event") { self.events.runsEnded(pack.id) == [.download] }
        try manager.setActive(pack.id, true)
        XCTAssertEqual(try state(pack), .active, "marked at once")
        try waitForState(pack, .complete)
        XCTAssertEqual(try database.progress(of: pack.id).completedResources, 322)
        try wait(for: "the resumed run's end event") { self.events.runsEnded(pack.id) == [.download, .download] }
        // Suspending a pack with nothing under way changes no finished state.
        try manager.setActive(pack.id, false)
        XCTAssertEqual(try state(pack), .complete)
    }

    func testRefreshRevalidatesEveryResourceAndSaysSo() throws {
        server = try TestServer.nginx()
        makeManager()
        let pack = try submit("helsinki")
        try waitForState(pack, .complete)
        try wait(for: "the download's end event") { self.events.runsEnded(pack.id) == [.download] }
        let before = try server.waitForLog(count: 322).count
        try manager.refresh(pack.id)
        try wait(for: "the refresh's end event") { self.events.runsEnded(pack.id) == [.download, .refresh] }
        let revalidations = try server.waitForLog(count: before + 322).dropFirst(before)
        XCTAssertEqual(revalidations.count, 322)
        XCTAssertEqual(Set(revalidations.map(\.status)), [304])
        XCTAssertEqual(try state(pack), .complete)
    }

    /// Requests queue behind the run under way: refreshes coalesce, a download cuts the run.
    /// The style's first answer takes 30 s; every later request is answered at once.
    func testRequestsQueueCoalesceAndCut() throws {
        server = try TestServer.faultServer(["--script", "/styles/bright.json=slow", "--slow-seconds", "30"])
        makeManager()
        let pack = try submit("helsinki")
        try wait(for: "the style request") { try self.server.arrivals().count == 1 }
        for _ in 0..<3 { try manager.refresh(pack.id) }
        XCTAssertEqual(events.runsEnded(pack.id), [], "a refresh does not cut the download")
        try manager.setActive(pack.id, true)
        try wait(for: "the queued runs") { self.events.runsEnded(pack.id).count == 3 }
        XCTAssertEqual(events.runsEnded(pack.id), [.download, .refresh, .download])
        // Waited for, not read once: with five builds loading the machine, a read right after the
        // third end event found `active` twice (cause not found; noted in issue 11's closing note).
        try waitForState(pack, .complete)
    }

    func testRemoveDeletesThePackAndItsMemberships() throws {
        server = try TestServer.nginx()
        makeManager()
        let pack = try submit("helsinki")
        try waitForState(pack, .complete)
        try manager.remove(pack.id)
        XCTAssertThrowsError(try database.pack(id: pack.id)) { XCTAssertEqual($0 as? StoreError, .regionNotFound(pack.id)) }
        // Gone at once; its rows go in the background (Removals.swift).
        try wait(for: "the removal's rows") { try self.database.removalsSettled() }
        XCTAssertEqual(try database.tileKeys(of: pack.id), [])
        XCTAssertEqual(try database.resourceURLs(of: pack.id), [])
        XCTAssertThrowsError(try manager.refresh(pack.id)) { XCTAssertEqual($0 as? StoreError, .regionNotFound(pack.id)) }
        XCTAssertThrowsError(try manager.remove(pack.id)) { XCTAssertEqual($0 as? StoreError, .regionNotFound(pack.id)) }
        // The name is free again: a new pack, a new row.
        let again = try submit("helsinki")
        XCTAssertNotEqual(again.id, pack.id)
        try waitForState(again, .complete)
    }

    /// An unmount mid-download records the pack `active`; the next mount's manager finishes it.
    func testStopAndTheNextManagerResumes() throws {
        server = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
        makeManager(concurrency: 2)
        let pack = try submit("helsinki")
        try wait(for: "some progress") { try self.database.progress(of: pack.id).completedResources > 10 }
        let elapsed = seconds { manager.stop() }
        XCTAssertLessThan(elapsed, 5)
        XCTAssertEqual(try state(pack), .active, "recorded for resumption")
        let stored = try database.progress(of: pack.id).completedResources
        XCTAssertLessThan(stored, 322)
        // Nothing runs after stop; a download asked for now waits for the next mount.
        try manager.setActive(pack.id, true)
        XCTAssertThrowsError(try manager.refresh(pack.id)) { XCTAssertEqual($0 as? LifecycleError, .stopped) }
        let next = makeManager(concurrency: 20)
        next.resumeActivePacks()
        try waitForState(pack, .complete)
        XCTAssertEqual(try database.progress(of: pack.id).completedResources, 322)
        try wait(for: "the resumed run's end event") { self.events.runsEnded(pack.id) == [.download] }
    }

    /// A pack created while the mount stops never started its run, yet the next mount runs it.
    func testAPackQueuedButNeverStartedResumesAtTheNextMount() throws {
        server = try TestServer.nginx()
        makeManager().stop()
        let pack = try submit("late")
        XCTAssertEqual(try state(pack), .active)
        XCTAssertEqual(events.runsEnded(pack.id), [])
        XCTAssertEqual(try server.accessLog().count, 0)
        makeManager().resumeActivePacks()
        try waitForState(pack, .complete)
    }

    func testABadRegionFileThrowsNamingTheFieldAndCreatesNothing() throws {
        server = try TestServer.nginx()
        makeManager()
        let cases: [(name: String, text: String, says: String)] = [
            ("a", #"{"style": "\#(server.baseURL)/styles/bright.json", "bounds": [0, 0, 1, 1], "maxzom": 3}"#, "maxzom"),
            ("a", #"{"style": "file:///etc/passwd", "bounds": [0, 0, 1, 1]}"#, "style"),
            ("a", #"{"style": "\#(server.baseURL)/s.json", "bounds": [0, 0, 1, 1], "minzoom": 5, "maxzoom": 2}"#, "minzoom"),
            ("a", "{\"style\": ", "JSON"),
            (".hidden", String(decoding: regionFile(), as: UTF8.self), "pack name"),
        ]
        for (name, text, says) in cases {
            XCTAssertThrowsError(try manager.submitRegionFile(name: name, content: Data(text.utf8))) { error in
                XCTAssertTrue(String(describing: error).contains(says), "\(error) names \(says)")
            }
        }
        XCTAssertEqual(try database.packs().count, 0)
        XCTAssertEqual(try server.accessLog().count, 0)
    }

    /// A pack whose stored definition PackFS cannot read (an app wrote it) cannot refresh or
    /// resume: it goes to `error`, the log says why, and the caller is told.
    func testAPackThatCannotRunGoesToErrorAndTheLogSaysWhy() throws {
        server = try TestServer.nginx()
        let path = database.path
        let pack = try database.createPack(name: "broken", definition: RegionDefinition(
            styleURL: server.url("/styles/bright.json"), area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)),
            minZoom: 0, maxZoom: 1))
        try database.setStatus(PackStatus(state: .active), of: pack.id)
        try database.close()
        let sql = "UPDATE regions SET definition = '{\"style_url\": 7}'"
        let python = try Command.run("/usr/bin/env", ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()", path, sql])
        XCTAssertEqual(python.status, 0, python.text)
        database = try OfflineDatabase.open(path: path, mode: .mount)
        makeManager()
        let log = try capturingStandardError {
            manager.resumeActivePacks()
            XCTAssertEqual(try state(pack), .error)
            XCTAssertThrowsError(try manager.refresh(pack.id)) { error in
                guard case .packFailed(let name, let reason)? = error as? LifecycleError else { return XCTFail("\(error)") }
                XCTAssertEqual(name, "broken")
                XCTAssertTrue(reason.contains("definition cannot be read"), reason)
            }
            XCTAssertThrowsError(try manager.setActive(pack.id, true))
        }
        let status = try database.status(of: pack.id)
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.contains("definition cannot be read") ?? false, status.error ?? "")
        let lines = log.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, log)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("packfs: pack broken: its definition cannot be read") }, log)
        XCTAssertEqual(try server.accessLog().count, 0)
    }
}
