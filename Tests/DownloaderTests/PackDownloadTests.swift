import Basics
import Downloader
import StyleModel
import Foundation
import PackStore
import TestSupport
import XCTest

/// The downloader end to end: real nginx or the fault server on 127.0.0.1, real SQLite files.
final class PackDownloadTests: PackDownloadTestCase {
    func testFixtureRegionStoresExactlyWhatTheContractPrescribes() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let database = try downloadWhole(helsinki(nginx.baseURL))
        let pack = try database.pack(named: "helsinki")
        let urls = try database.resourceURLs(of: pack.id)
        XCTAssertEqual(urls.count, 297, "style, TileJSON, 4 sprite files, 3 x 97 glyph ranges")
        XCTAssertEqual(urls.filter { $0.contains("/fonts/") }.count, 291)
        XCTAssertEqual(urls.filter { $0.contains("/sprites/") }.count, 4)
        let tiles = try database.tileKeys(of: pack.id)
        XCTAssertEqual(tiles.count, 25)
        XCTAssertEqual(tiles.filter { $0.urlTemplate.contains("/helsinki/") }.count, 19)
        XCTAssertEqual(tiles.filter { $0.urlTemplate.contains("/land/") }.count, 5)
        XCTAssertEqual(tiles.filter { $0.urlTemplate.contains("/geography-class-png/") }.map(\.z), [1])
        let progress = try database.progress(of: pack.id)
        XCTAssertEqual(progress.completedResources, 322)
        XCTAssertEqual(progress.requiredResources, 322)
        XCTAssertTrue(progress.status.requiredIsPrecise)
        XCTAssertEqual(pack.definition, helsinki(nginx.baseURL))
        XCTAssertEqual(pack.metadata, .object(["trip": .string("test")]))
        try assertStoredContentMatchesOrigin(nginx)

        // A second download of the same region sends no request at all: everything is adopted.
        let before = try nginx.waitForLog(count: 322).count
        XCTAssertEqual(before, 322, "one request per resource and tile")
        XCTAssertEqual(try download(helsinki(nginx.baseURL)).state, .complete)
        XCTAssertEqual(try nginx.settledAccessLog().count, before)
        // So does a second pack of the same region: shared rows are adopted, stored once.
        XCTAssertEqual(try download(helsinki(nginx.baseURL), name: "again").state, .complete)
        XCTAssertEqual(try nginx.accessLog().count, before)
        let reopened = try OfflineDatabase.open(path: path, mode: .readOnly)
        XCTAssertEqual(try reopened.databaseCounts().tiles, 25)
        XCTAssertEqual(try reopened.progress(of: reopened.pack(named: "again").id).counts.tiles, 25)
    }

    func testFaultsOfEveryKindStillGiveAByteExactPack() throws {
        let faults = try TestServer.faultServer([
            "--seed", "11", "--rate-500", "0.1", "--rate-502", "0.1", "--rate-503", "0.1", "--rate-429", "0.1",
            "--rate-reset", "0.1", "--rate-truncate", "0.1", "--rate-corrupt", "0.1", "--rate-slow", "0.1",
            "--retry-after", "0", "--slow-seconds", "0.05", "--gzip",
        ])
        server = faults
        // At 70% failures per attempt some paths fail ten times in a row.
        let status = try download(helsinki(faults.baseURL), options: quickRetries)
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        let log = try faults.accessLog()
        for kind in ["500", "502", "503", "429", "reset", "truncate"] {
            let share = Double(log.filter { $0.fault == kind }.count) / Double(log.count)
            XCTAssertGreaterThanOrEqual(share, 0.05, "fault \(kind) happened (\(share))")
        }
        try assertStoredContentMatchesOrigin(faults)
        XCTAssertEqual(try OfflineDatabase.open(path: path, mode: .readOnly).tileKeys(of: RegionID(1)).count, 25)
    }

    func testA403OnOneTileStopsThePackInErrorNamingTheURL() throws {
        let faults = try TestServer.faultServer(["--fail-path", "/tiles/helsinki/14/9326/4742.pbf=403"])
        server = faults
        let status = try download(helsinki(faults.baseURL))
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.contains("403") == true, status.error ?? "")
        XCTAssertTrue(status.error?.contains(faults.baseURL + "/tiles/helsinki/14/9326/4742.pbf") == true, status.error ?? "")
        let stored = try OfflineDatabase.open(path: path, mode: .readOnly).status(of: RegionID(1))
        XCTAssertEqual(stored.state, .error)
        XCTAssertEqual(stored.error, status.error)
    }

    func testRedefinitionConvergesWithoutRefetching() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        XCTAssertEqual(try download(helsinki(nginx.baseURL, maxZoom: 12)).state, .complete)
        let first = try nginx.waitForLog(count: 1).count
        XCTAssertEqual(try download(helsinki(nginx.baseURL, maxZoom: 14)).state, .complete)
        let second = Array(try nginx.settledAccessLog().dropFirst(first))
        XCTAssertFalse(second.isEmpty)
        XCTAssertTrue(second.allSatisfy { $0.uri.contains("/13/") || $0.uri.contains("/14/") }, "\(second.map(\.uri))")
        let before = Set(try OfflineDatabase.open(path: path, mode: .readOnly).tileKeys(of: RegionID(1)))
        let left = LockedState<[TileKey]>([])
        XCTAssertEqual(try download(helsinki(nginx.baseURL, maxZoom: 10)) { tiles, _ in left.withLock { $0 = tiles } }.state, .complete)
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        let keys = try database.tileKeys(of: RegionID(1))
        XCTAssertEqual(Set(left.withLock { $0 }), before.subtracting(keys), "the mount is told which tiles left")
        XCTAssertFalse(left.withLock { $0 }.isEmpty)
        XCTAssertTrue(keys.allSatisfy { $0.z <= 10 })
        XCTAssertEqual(try database.progress(of: RegionID(1)).requiredTiles, keys.count)
        XCTAssertGreaterThan(try XCTUnwrap(database.ambientUsage()?.tiles), 0, "dropped tiles became ambient cache")
    }

    func testRefreshRevalidatesEverythingAndStoresOnlyWhatChanged() throws {
        let faults = try TestServer.faultServer(["--etag-mode", "generation"])
        server = faults
        XCTAssertEqual(try download(helsinki(faults.baseURL)).state, .complete)
        let first = try faults.accessLog().count
        XCTAssertEqual(try download(helsinki(faults.baseURL), mode: .refresh).state, .complete)
        let refresh = Array(try faults.accessLog().dropFirst(first))
        XCTAssertEqual(refresh.count, 322, "every resource and tile revalidated")
        XCTAssertTrue(refresh.allSatisfy { !$0.ifNoneMatch.isEmpty }, "conditional requests")
        XCTAssertTrue(refresh.allSatisfy { $0.status == 304 }, "\(Set(refresh.map(\.status)))")
        try assertStoredContentMatchesOrigin(faults)
    }

    func testTileLimitStopsThePackAndKeepsWhatWasStored() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        var options = DownloadOptions()
        options.maxTiles = 10
        let status = try download(helsinki(nginx.baseURL), options: options)
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.contains("--max-tiles") == true, status.error ?? "")
        options.maxTiles = 100
        XCTAssertEqual(try download(helsinki(nginx.baseURL), options: options).state, .complete)
    }

    func testSuspendThenResumeFetchesNothingTwice() throws {
        let faults = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
        server = faults
        var options = DownloadOptions()
        options.http.concurrency = 4
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        let pack = try database.createPack(name: "helsinki", definition: helsinki(faults.baseURL))
        let first = PackDownload(database: database, region: pack.id, definition: helsinki(faults.baseURL), options: options)
        // Suspended once a fifth of the pack was asked for (about 0.8 s in at this pace).
        Thread.detachNewThread {
            _ = eventually { ((try? faults.arrivals().count) ?? 0) >= 64 }
            first.suspend()
        }
        XCTAssertEqual(first.run().state, .inactive)
        XCTAssertEqual(try database.status(of: pack.id).state, .inactive)
        let stored = try database.resourceURLs(of: pack.id).count + database.tileKeys(of: pack.id).count
        // The suspended run recorded how far its tiles were committed (at most what it stored).
        let point = try XCTUnwrap(try database.resumePoint(of: pack.id))
        let position = try XCTUnwrap(point.position)
        XCTAssertLessThanOrEqual(position, try database.tileKeys(of: pack.id).count)
        try database.close()
        XCTAssertGreaterThan(stored, 0)
        XCTAssertLessThan(stored, 322)
        let storedPaths = try Self.storedPaths(path, base: faults.baseURL)
        XCTAssertEqual(storedPaths.count, stored)
        // Requests cancelled in flight are logged as the server finishes them.
        let before = try faults.settledAccessLog().count
        let reopened = try OfflineDatabase.open(path: path, mode: .mount)
        let second = PackDownload(database: reopened, region: pack.id, definition: helsinki(faults.baseURL))
        XCTAssertEqual(second.run().state, .complete)
        XCTAssertEqual(second.resumedFrom, position, "the resumed run starts at the recorded point")
        XCTAssertEqual(try reopened.resumePoint(of: pack.id), ResumePoint(plan: point.plan, since: 0, position: nil))
        try reopened.close()
        let after = Array(try faults.accessLog().dropFirst(before))
        XCTAssertEqual(after.filter { storedPaths.contains($0.uri) }.map(\.uri), [], "stored before suspension, fetched again")
        XCTAssertEqual(after.count, 322 - stored)
    }

    /// The server paths of everything the first pack holds.
    static func storedPaths(_ path: String, base: String) throws -> Set<String> {
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? database.close() }
        let resources = try database.resourceURLs(of: RegionID(1))
        let tiles = try database.tileKeys(of: RegionID(1)).map(TileURLTemplate.url(for:))
        return Set((resources + tiles).map { String($0.dropFirst(base.count)) })
    }
}
