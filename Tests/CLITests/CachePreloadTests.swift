import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

/// `packfs cache DB preload URL FILE`: MGLOfflineStorage's preloadData. The bytes go into the
/// ambient cache under the URL with the database's compression rule and the headers given, a
/// download then adopts them without a request, and what cannot be stored is refused with the
/// file and the database as they were.
final class CachePreloadTests: CLITestCase {
    func testAPreloadedStyleIsStoredAsAmbientCacheWithItsHeaders() throws {
        XCTAssertEqual(try packfs("reset", db).status, 0)
        let style = ProjectPaths.world.appendingPathComponent("styles/bright.json").path
        let url = "http://127.0.0.1:9/styles/bright.json"
        let outcome = try packfs("cache", db, "preload", url, style, "--etag", "\"v1\"", "--expires", "2027-01-31T12:00:00Z",
                                 "--modified", "1700000000", "--must-revalidate", "--json")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(JSONValue.parse(Data(outcome.stdout.utf8))?["kind"], .number(1))
        let row = try XCTUnwrap(try DatabaseQueue(path: db).read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM resources WHERE url = ?", arguments: [url])
        })
        let content = try Data(contentsOf: URL(fileURLWithPath: style))
        let stored = StoredData(bytes: row["data"], compressed: row["compressed"])
        XCTAssertEqual(try stored.decoded(), content)
        XCTAssertTrue(stored.compressed && stored.storedSize < content.count, "compressed, since that is smaller")
        XCTAssertEqual(row["kind"] as Int64?, 1)
        XCTAssertEqual(row["etag"] as String?, "\"v1\"")
        XCTAssertEqual(row["expires"] as Int64?, 1_801_396_800)
        XCTAssertEqual(row["modified"] as Int64?, 1_700_000_000)
        XCTAssertEqual(row["must_revalidate"] as Bool?, true)
        let size = JSONValue.parse(Data(try packfs("cache", db, "size", "--json").stdout.utf8))
        XCTAssertEqual(size?["resources"], .number(1), "ambient: no pack holds it")
    }

    func testADownloadAdoptsPreloadedResourcesWithoutRequestingThem() throws {
        server = try TestServer.nginx()
        XCTAssertEqual(try packfs("reset", db).status, 0)
        let sprite = "/sprites/bright.json"
        let preloaded = try packfs("cache", db, "preload", server.url(sprite), try file(server.expectedContent(sprite)))
        XCTAssertEqual(preloaded.status, 0, preloaded.stderr)
        let region = temp.path("region.json")
        try """
            {"style": "\(server.baseURL)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "maxzoom": 1}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        let downloaded = try packfs("download", db, "hki", region)
        XCTAssertEqual(downloaded.status, 0, downloaded.stderr)
        let requested = try server.settledAccessLog().map(\.uri)
        XCTAssertFalse(requested.contains(sprite), "the preloaded sprite index was fetched again")
        XCTAssertTrue(requested.contains("/sprites/bright.png"), "the rest of the pack was fetched")
    }

    func testWhatCannotBeStoredIsRefusedAndChangesNothing() throws {
        XCTAssertEqual(try packfs("reset", db).status, 0)
        let small = try file(Data("{}".utf8))
        let big = try file(Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let cases: [([String], Int32, String)] = [
            (["ftp://x/a.json", small], 2, "only http, https and mapbox URLs"),
            (["http://x/a.json", temp.path("absent")], 1, "no such file"),
            (["http://x/a.json", temp.url.path], 1, "is a directory"),
            (["http://x/a.json", small, "--expires", "tomorrow"], 2, "neither Unix seconds nor an ISO 8601 time"),
            (["http://x/a.json", small, "--kind", "tile"], 2, "--kind \"tile\""),
            (["http://x/a.json", big, "--disk-quota", "1K"], 1, "disk quota"),
        ]
        for (arguments, status, words) in cases {
            let outcome = try packfs(["cache", db, "preload"] + arguments)
            XCTAssertEqual(outcome.status, status, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(words), "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "\(arguments) changed the database")
        }
        XCTAssertEqual(try packfs("cache", db, "limit", "100").status, 0)
        let over = try packfs("cache", db, "preload", "http://x/big.bin", big)
        XCTAssertEqual(over.status, 1)
        XCTAssertTrue(over.stderr.contains("over the ambient cache's limit of 100 bytes"), over.stderr)
        XCTAssertEqual(try packfs("cache", temp.path("typo.db"), "preload", "http://x/a.json", small).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("typo.db")))
    }

    func testTheKindComesFromTheURLAsItsFormsSay() {
        let cases: [(String, ResourceKind)] = [
            ("mapbox://styles/mapbox/streets-v12", .style), ("mapbox://fonts/mapbox/Open%20Sans/0-255.pbf", .glyphs),
            ("mapbox://sprites/mapbox/streets@2x.png", .spriteImage), ("mapbox://sprites/mapbox/streets.json", .spriteJSON),
            ("mapbox://mapbox.mapbox-streets-v8", .source), ("https://t.test/fonts/Noto%20Sans/256-511.pbf", .glyphs),
            ("https://t.test/sprites/bright@2x.json", .spriteJSON), ("https://t.test/sprite.png", .spriteImage),
            ("https://t.test/styles/bright.json", .style), ("https://t.test/data/trails.geojson", .source),
            ("https://t.test/tiles/helsinki.json", .source), ("https://t.test/overlay.png", .image),
            ("https://t.test/thing", .unknown),
        ]
        for (url, kind) in cases { XCTAssertEqual(ResourceKindGuess.kind(of: url), kind, url) }
    }

    /// A file in the test's directory holding `content`.
    private func file(_ content: Data) throws -> String {
        let path = temp.path("file-\(UUID().uuidString)")
        try content.write(to: URL(fileURLWithPath: path))
        return path
    }
}
