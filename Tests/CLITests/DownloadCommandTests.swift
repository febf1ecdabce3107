import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// `packfs download`, `refresh` and `estimate` as a user runs them, against real servers.
final class DownloadCommandTests: CLITestCase {
    func writeRegion(_ base: String, extra: String = "") throws -> String {
        let region = temp.path("region.json")
        try """
            {"style": "\(base)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18],
             "minzoom": 0, "maxzoom": 14, "metadata": {"trip": "Helsinki weekend"}\(extra)}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        return region
    }

    func testDownloadEstimateAndRefreshFromNginx() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let region = try writeRegion(nginx.baseURL)
        let estimate = try packfs("estimate", region, "--json")
        XCTAssertEqual(estimate.status, 0, estimate.stderr)
        let figures = try XCTUnwrap(JSONValue.parse(Data(estimate.stdout.utf8)))
        XCTAssertEqual(figures["tiles"], .number(25))
        XCTAssertEqual(figures["required_resources"], .number(322))
        let outcome = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("25/25 tiles"), outcome.stderr)
        let status = JSONValue.parse(Data(try packfs("status", db, "helsinki", "--json").stdout.utf8))
        XCTAssertEqual(status?["state"], .string("complete"))
        XCTAssertEqual(status?["metadata"], .object(["trip": .string("Helsinki weekend")]))
        // The estimate's own requests (the style, the TileJSON and its samples) came first.
        let estimateRequests = Int(figures["requests"]?.number ?? 0)
        let requests = try nginx.waitForLog(count: estimateRequests + 322).count
        let refresh = try packfs("refresh", db, "helsinki")
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        let revalidations = Array(try nginx.waitForLog(count: requests + 322).dropFirst(requests))
        XCTAssertEqual(revalidations.count, 322)
        XCTAssertEqual(Set(revalidations.map(\.status)), [304])
    }

    /// A style on the origin whose sprite is on another loopback service: `download` exits 1 with
    /// one line naming the URL and the rule, the service hears nothing; `--allow-host` opens it.
    func testAStyleNamingAnotherLoopbackServiceIsRefusedUnlessAllowed() throws {
        let origin = try TestServer.faultServer(["--gzip"])
        server = origin
        let service = try TestServer.faultServer()
        defer { service.stop() }
        let style = try String(contentsOf: ProjectPaths.world.appendingPathComponent("styles/bright.json"), encoding: .utf8)
            .replacingOccurrences(of: "{base}/sprites/", with: service.url("/sprites/"))
        try FileManager.default.createDirectory(atPath: origin.overlayPath + "/styles", withIntermediateDirectories: true)
        try style.write(toFile: origin.overlayPath + "/styles/bright.json", atomically: true, encoding: .utf8)
        let region = try writeRegion(origin.baseURL)
        let refused = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        let last = refused.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.contains("refused \(service.url("/sprites/bright"))"), last)
        XCTAssertTrue(last.contains("127.0.0.1, a loopback address, which only the style's own origin"), last)
        XCTAssertEqual(try service.arrivals().count, 0)
        let allowed = try packfs("download", db, "helsinki", region,
                                 "--allow-host", "127.0.0.1:\(origin.port)", "--allow-host", "127.0.0.1:\(service.port)")
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(try service.settledAccessLog().count, 4, "the sprite's four files")
    }

    func testBadRegionFilesNameTheFieldAndChangeNothing() throws {
        try packfs("reset", db)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let cases: [(String, String)] = [
            (#"{"style": "file:///etc/passwd", "bounds": [0,0,1,1]}"#, "style"),
            (#"{"style": "http://127.0.0.1:1/s.json", "bounds": [0,0,1,100]}"#, "bounds"),
            (#"{"style": "http://127.0.0.1:1/s.json", "bounds": [0,0,1,1], "minzoom": 9, "maxzoom": 3}"#, "minzoom"),
            ("not json", "JSON"),
        ]
        for (text, field) in cases {
            let region = temp.path("bad.json")
            try text.write(toFile: region, atomically: true, encoding: .utf8)
            let outcome = try packfs("download", db, "bad", region)
            XCTAssertEqual(outcome.status, 1, text)
            XCTAssertTrue(outcome.stderr.contains(field), "\(text): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, outcome.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before)
    }

    func testA403EndsInErrorWithExitStatusOne() throws {
        let faults = try TestServer.faultServer(["--fail-path", "/sprites/bright@2x.png=403"])
        server = faults
        let outcome = try packfs("download", db, "helsinki", try writeRegion(faults.baseURL))
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.contains("HTTP 403 for \(faults.baseURL)/sprites/bright@2x.png"), outcome.stderr)
        let status = JSONValue.parse(Data(try packfs("status", db, "helsinki", "--json").stdout.utf8))
        XCTAssertEqual(status?["state"], .string("error"))
    }

    /// A server that answers 404 for every tile (its tiles folder empty): the pack holds no tile
    /// content though its plan needs 25 tiles, so it ends in `error`, naming the count and a
    /// tile's URL, and its progress line never says 100%.
    func testAPackWithoutOneTileEndsInErrorNotComplete() throws {
        let world = temp.url.appendingPathComponent("world")
        let tiles = world.appendingPathComponent("tiles")
        try FileManager.default.createDirectory(at: tiles, withIntermediateDirectories: true)
        // Copies of the documents (nginx-world.sh writes the server's address into them), a link
        // to the glyphs (6.6 MB, no address in them).
        for part in ["data", "images", "sprites", "styles"] {
            try FileManager.default.copyItem(at: ProjectPaths.world.appendingPathComponent(part), to: world.appendingPathComponent(part))
        }
        try FileManager.default.createSymbolicLink(
            at: world.appendingPathComponent("fonts"), withDestinationURL: ProjectPaths.world.appendingPathComponent("fonts"))
        try FileManager.default.copyItem(
            at: ProjectPaths.world.appendingPathComponent("tiles/helsinki.json"), to: tiles.appendingPathComponent("helsinki.json"))
        let nginx = try TestServer.nginx(world: world)
        server = nginx
        let outcome = try packfs("download", db, "helsinki", try writeRegion(nginx.baseURL))
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("none of the pack's 25 tiles could be stored"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("e.g. \(nginx.baseURL)/tiles/"), outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("100.0%"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("99.9% 322/322 resources"), outcome.stderr)
        let status = JSONValue.parse(Data(try packfs("status", db, "helsinki", "--json").stdout.utf8))
        XCTAssertEqual(status?["state"], .string("error"))
    }

    /// SIGKILL once some batches are stored (and a random moment later), then the same command
    /// again: the pack completes and nothing stored before the kill is requested again.
    func testKilledDownloadResumesWithoutRefetching() throws {
        let faults = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.03"])
        server = faults
        let region = try writeRegion(faults.baseURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Packfs.path)
        process.arguments = ["download", db, "helsinki", region, "--concurrency", "4"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        XCTAssertTrue(eventually { !process.isRunning || Self.storedMembers(db) >= 50 }, "batches stored")
        usleep(useconds_t.random(in: 0...20_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        let pack = try database.pack(named: "helsinki")
        var stored = Set(try database.resourceURLs(of: pack.id))
        for key in try database.tileKeys(of: pack.id) {
            stored.insert(key.urlTemplate.replacingOccurrences(of: "{z}", with: "\(key.z)")
                .replacingOccurrences(of: "{x}", with: "\(key.x)").replacingOccurrences(of: "{y}", with: "\(key.y)"))
        }
        try database.close()
        XCTAssertGreaterThan(stored.count, 0, "the kill came after some batches")
        XCTAssertLessThan(stored.count, 322, "the kill came before the end")
        // Requests cut by the kill are logged as the server finishes them.
        let before = try faults.settledAccessLog().count
        let rerun = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let again = try faults.accessLog().dropFirst(before).map { faults.baseURL + $0.uri }
        XCTAssertEqual(again.filter { stored.contains($0) }, [], "stored before the kill, requested again")
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).progress(of: pack.id).completedResources, 322)
        let check = try OfflineDatabase.open(path: db, mode: .readOnly).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        XCTAssertEqual(check, "ok")
    }

    /// Resources and tiles of pack "helsinki" that `db` holds so far (0 while there is no such
    /// pack); read as the download writes, without taking its lock.
    private static func storedMembers(_ db: String) -> Int {
        guard let database = try? OfflineDatabase.open(path: db, mode: .readOnly) else { return 0 }
        defer { try? database.close() }
        guard let pack = try? database.pack(named: "helsinki") else { return 0 }
        return ((try? database.resourceURLs(of: pack.id).count) ?? 0) + ((try? database.tileKeys(of: pack.id).count) ?? 0)
    }
}
