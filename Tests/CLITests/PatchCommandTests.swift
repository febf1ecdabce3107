import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs patch DB NAME PATCH` as a user runs it: a file, an http URL from nginx, and every
/// refusal as one line and exit 1 with the database file byte for byte and no spool file left.
final class PatchCommandTests: CLITestCase {
    let before = MartinFixtures.hashes["world_cities"] ?? ""
    let after = MartinFixtures.hashes["world_cities_modified"] ?? ""

    /// The pack "cities" (martin's world_cities) and a patch to world_cities_modified.
    private func prepare() throws -> String {
        let (old, new) = try MartinFixtures.patchSides(in: temp)
        XCTAssertEqual(try packfs("import", db, old, "--name", "cities", "--accept-hash-mismatch").status, 0)
        let patch = temp.path("diff.mbtiles")
        try PatchFiles.make(old: old, new: new, to: patch, before: before, after: after)
        return patch
    }

    func testAPatchFileAppliesOnceAndThenIsRefusedNamingBothHashes() throws {
        let patch = try prepare()
        let applied = try packfs("patch", db, "cities", patch, "--json")
        XCTAssertEqual(applied.status, 0, applied.stderr)
        let summary = try XCTUnwrap(JSONValue.parse(Data(applied.stdout.utf8)), applied.stdout)
        XCTAssertEqual(summary["after"]?.string, after)
        XCTAssertEqual(summary["before"]?.string, before)
        XCTAssertTrue(try packfs("verify", db, "cities").stdout.contains("agg_tiles_hash \(after) (as recorded)"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let again = try packfs("patch", db, "cities", patch)
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(again.stderr.split(separator: "\n").count, 1, again.stderr)
        XCTAssertTrue(again.stderr.contains(before) && again.stderr.contains(after), again.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
    }

    func testAPatchFromAnHTTPURLApplies() throws {
        let patch = try prepare()
        let nginx = try TestServer.nginx()
        server = nginx
        let served = try XCTUnwrap(nginx.servedRoot).appendingPathComponent("diff.mbtiles")
        try FileManager.default.copyItem(atPath: patch, toPath: served.path)
        let missing = try packfs("patch", db, "cities", nginx.url("/nosuch.mbtiles"))
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("404") && missing.stderr.contains("nosuch.mbtiles"), missing.stderr)
        let applied = try packfs("patch", db, "cities", nginx.url("/diff.mbtiles"))
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertTrue(applied.stdout.contains(after), applied.stdout)
        XCTAssertEqual(spoolFiles(), [])
    }

    /// The publishing pipeline: a server's master pack and next week's file give a diff; the
    /// device's copy of the pack applies it and holds next week's tiles.
    func testADiffOfThePackAppliesToIt() throws {
        _ = try prepare()
        let new = temp.path("world_cities_modified.mbtiles")
        let diff = temp.path("weekly.mbtiles")
        let made = try packfs("diff", "--old-pack", db, "cities", new, diff)
        XCTAssertEqual(made.status, 0, made.stderr)
        let applied = try packfs("patch", db, "cities", diff)
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertTrue(try packfs("verify", db, "cities").stdout.contains("agg_tiles_hash \(after) (as recorded)"))
        // Nothing left between the pack and the file: the next diff is empty.
        let empty = temp.path("empty.mbtiles")
        XCTAssertEqual(try packfs("diff", "--old-pack", db, "cities", new, empty).status, 0)
        XCTAssertEqual(try packfs("patch", db, "cities", empty).status, 0)
    }

    func testBadArgumentsFailWithOneLineAndChangeNothing() throws {
        let patch = try prepare()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let cases: [([String], Int32, String)] = [
            ([db, "cities", temp.path("nosuch.mbtiles")], 1, "no such file"),
            ([db, "cities", temp.path("")], 1, "is a directory"),
            ([db, "nosuch", patch], 1, "no pack named \"nosuch\""),
            ([db, "cities", "file://\(patch)"], 2, "only http and https URLs are fetched"),
            ([db, "cities", temp.path("world_cities.mbtiles")], 1, "is not a patch"),
            ([temp.path("other.db"), "cities", patch], 1, "no such offline database"),
        ]
        for (arguments, status, message) in cases {
            let outcome = try packfs(["patch"] + arguments)
            XCTAssertEqual(outcome.status, status, "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(message), "\(arguments): \(outcome.stderr)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), bytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("other.db")))
        XCTAssertEqual(spoolFiles(), [])
    }

    private func spoolFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: temp.path(""))) ?? []).filter { $0.contains(".patch-") }
    }
}
