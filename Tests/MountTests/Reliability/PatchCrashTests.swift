import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// A patch of every tile of a 4,096-tile pack copied to the mount, once to the end (every tile a
/// reader had cached reads the new bytes after it) and then with the daemon killed (SIGKILL) at
/// a random moment of its application: the pack's tiles hash to `before_apply` or to
/// `after_apply`, never a third value, the file passes SQLite's integrity check, and a patch
/// left undone applies on the next mount.
final class PatchCrashTests: PackFSTestCase {
    static let kills = 4
    var db: String { databasePath }
    var mountpoint: String { temp.path("mnt") }
    var daemon: PackFSProcess?

    override func setUpWithError() throws {
        try super.setUpWithError()
        try MountHelper.requireFUSE()
        try FileManager.default.createDirectory(atPath: mountpoint, withIntermediateDirectories: true)
    }

    override func tearDown() {
        daemon?.kill9()
        super.tearDown()
    }

    func testKillingTheDaemonWhileAPatchIsAppliedLeavesBeforeOrAfter() throws {
        let (base, patch, before, after) = try makePack()
        let newTiles = try PatchMountTests.contents(of: temp.path("grid2.mbtiles"))
        // Uninterrupted: how long applying takes here (the window the kills fall in).
        try FileManager.default.copyItem(atPath: base, toPath: db)
        try mount()
        let cached = try readTiles(12).filter { path, content in newTiles[tilePath(path)] != content }
        XCTAssertFalse(cached.isEmpty, "no tile read changes")
        let started = try copyInBackground(patch)
        try waitForSpool(of: patch)
        let spooled = Date()
        started.waitUntilExit()
        let window = Date().timeIntervalSince(spooled)
        XCTAssertEqual(started.terminationStatus, 0)
        for path in cached.keys { XCTAssertEqual(FileManager.default.contents(atPath: path), newTiles[tilePath(path)], path) }
        XCTAssertEqual(daemon?.terminate(), 0)
        XCTAssertEqual(try hash(), after)

        var outcomes: [String: Int] = [:]
        for _ in 0..<Self.kills {
            try FileManager.default.removeItem(atPath: db)
            try FileManager.default.copyItem(atPath: base, toPath: db)
            try mount()
            let cp = try copyInBackground(patch)
            try waitForSpool(of: patch)
            // Most of the window is the checks before the commit: half again as long, so that
            // some kills land after it.
            usleep(UInt32.random(in: 0...UInt32(max(window, 0.001) * 1_500_000)))
            daemon?.kill9()
            cp.waitUntilExit()
            let found = try hash()
            XCTAssertTrue([before, after].contains(found), "hash \(found) after a kill")
            XCTAssertEqual(try integrity(), "ok")
            outcomes[found == before ? "before" : "after", default: 0] += 1
            // Undone: it applies now; done: it is refused.
            try mount()
            let again = try Command.run("/bin/cp", [patch, mountpoint + "/packs/grid.patch"])
            XCTAssertEqual(again.status == 0, found == before, again.text)
            XCTAssertEqual(daemon?.terminate(), 0)
            XCTAssertEqual(try hash(), after)
        }
        print("patch kills: \(outcomes) (apply takes \(String(format: "%.3f", window)) s here)")
    }

    /// The pack (4,096 z12 tiles, martin's world_cities tiles cycled) in a database, a patch
    /// giving every tile other bytes, and the two hashes.
    private func makePack() throws -> (base: String, patch: String, before: String, after: String) {
        let cities = try MartinFixtures.build("world_cities", in: temp)
        let old = temp.path("grid.mbtiles"), new = temp.path("grid2.mbtiles")
        for (file, shift) in [(old, 0), (new, 1)] {
            try PatchFiles.sqlite(file, """
                ATTACH '\(cities)' AS src;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                INSERT INTO metadata VALUES ('name', 'grid'), ('format', 'pbf');
                CREATE TEMP TABLE source AS SELECT row_number() OVER () - 1 AS n, tile_data FROM src.tiles;
                WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 4095)
                  INSERT INTO tiles SELECT 12, i.n % 64, i.n / 64, s.tile_data FROM i JOIN source s ON s.n = (i.n + \(shift)) % 8;
                """)
        }
        let base = temp.path("base.db")
        XCTAssertEqual(try Packfs.run(["import", base, old, "--name", "grid"]).status, 0)
        let before = try hash(of: base)
        let scratch = temp.path("scratch.db")
        XCTAssertEqual(try Packfs.run(["import", scratch, new, "--name", "grid"]).status, 0)
        let after = try hash(of: scratch)
        let patch = temp.path("grid.patch.mbtiles")
        try PatchFiles.make(old: old, new: new, to: patch, before: before, after: after)
        return (base, patch, before, after)
    }

    private func mount() throws {
        daemon = try PackFSProcess.mount(db: db, at: mountpoint, log: temp.path("mount-\(UUID().uuidString).log"))
    }

    private func copyInBackground(_ patch: String) throws -> Process {
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = [patch, mountpoint + "/packs/grid.patch"]
        cp.standardError = FileHandle.nullDevice
        try cp.run()
        return cp
    }

    /// Waits until the spool beside the database holds the whole patch: its application begins.
    private func waitForSpool(of patch: String) throws {
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: patch)[.size] as? Int)
        XCTAssertTrue(eventually(timeout: 60) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: temp.path(""))) ?? []
            return names.contains { name in
                name.contains(".patch-")
                    && (try? FileManager.default.attributesOfItem(atPath: temp.path(name))[.size] as? Int) == size
            }
        }, "the patch never reached the daemon whole")
    }

    /// `count` tiles of the pack, read through the mount (the kernel keeps them).
    private func readTiles(_ count: Int) throws -> [String: Data] {
        var read: [String: Data] = [:]
        for n in 0..<count {
            let path = "\(mountpoint)/packs/grid/12/\(n)/4095.pbf"
            read[path] = try XCTUnwrap(FileManager.default.contents(atPath: path), path)
        }
        return read
    }

    /// "z/x/y.pbf" of a tile's path through the mount.
    private func tilePath(_ path: String) -> String {
        path.split(separator: "/").suffix(3).joined(separator: "/")
    }

    private func hash(of database: String? = nil) throws -> String {
        let outcome = try Packfs.run(["verify", "--json", database ?? db, "grid"])
        let report = try XCTUnwrap(JSONValue.parse(Data(outcome.text.utf8)), outcome.text)
        return try XCTUnwrap(report["sources"]?.array?.first?["agg_tiles_hash"]?.string, outcome.text)
    }

    private func integrity() throws -> String {
        let queue = try DatabaseQueue(path: db)
        defer { try? queue.close() }
        return try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") ?? "" }
    }
}
