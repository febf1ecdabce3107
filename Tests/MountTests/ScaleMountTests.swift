import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Issue 20 at a size CI affords: an app-made database of 100,000 tiles in two packs (MapLibre's
/// schema and rows written with plain SQL, no PackFS table) mounts with its figures "still being
/// counted", is counted once in the background, and then shows exact figures; `rm` of the big
/// pack makes it disappear at once while its rows go in the background, the small pack reading
/// byte for byte meanwhile. (Speed is the benchmark's: scripts/bench/planet.sh.)
final class ScaleMountTests: DaemonMountTestCase {
    static let bigTiles = 99_000
    static let smallTiles = 1_000

    override class func makeServer() throws -> TestServer? { nil }

    /// Tile (x, y) of zoom 16 holds these bytes: unique, raw (compressed = 0).
    static func content(_ x: Int, _ y: Int) -> Data { Data(String(format: "tile %05d %05d", x, y).utf8) }

    func testAnAppsLargeDatabaseIsCountedOnceAndARemovalNeverWaitsForItsRows() throws {
        try makeAppDatabase()
        try mountPackFS()
        let status = "\(mount.path)/status.json"
        XCTAssertTrue(eventually(timeout: 120) { Self.json(status)?["counting"] == .bool(false) }, "\(String(describing: Self.json(status)))")
        let figures = try XCTUnwrap(Self.json(status))
        XCTAssertEqual(figures["tiles"], .number(Double(Self.bigTiles + Self.smallTiles + 1)))
        XCTAssertEqual(figures["packs"], .number(2))
        XCTAssertEqual(figures["ambient_cache"]?["tiles"], .number(1), "the one tile no pack holds")
        XCTAssertTrue(eventually(timeout: 60) { progress("big")?["completed_tiles"] == .number(Double(Self.bigTiles)) },
                      "\(String(describing: progress("big")))")
        // Counted after the big one (the packs go one at a time): waited for, not assumed.
        XCTAssertTrue(eventually(timeout: 60) { progress("small")?["completed_tiles"] == .number(Double(Self.smallTiles)) },
                      "\(String(describing: progress("small")))")

        XCTAssertEqual(Self.json(status)?["reclaiming"], .null, "nothing removed yet")
        let rm = try Command.run("/bin/rm", [packs + "/big.region"])
        XCTAssertEqual(rm.status, 0, rm.text)
        // Read at once: 99,000 memberships take many removal steps; whatever is left is the big pack's.
        if let reclaiming = Self.json(status)?["reclaiming"], reclaiming != .null {
            XCTAssertEqual(reclaiming["packs"], .number(1), "\(reclaiming)")
            XCTAssertLessThanOrEqual(reclaiming["rows"]?.number ?? -1, Double(Self.bigTiles), "\(reclaiming)")
        }
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: packs).contains("big"), "gone at once")
        // The small pack reads byte for byte while the big one's rows go.
        for index in stride(from: 0, to: Self.smallTiles, by: 37) {
            let (x, y) = Self.smallTile(index)
            XCTAssertEqual(FileManager.default.contents(atPath: "\(packs)/small/16/\(x)/\(y).pbf"), Self.content(x, y))
        }
        XCTAssertTrue(eventually(timeout: 300) { (try? Self.rowsOfRegion(1, in: self.db)) == 0 }, "the big pack's rows went")
        XCTAssertTrue(eventually(timeout: 60) { Self.json(status)?["packs"] == .number(1) })
        XCTAssertTrue(eventually(timeout: 120) { Self.json(status)?["reclaiming"] == .null }, "every page given back")
        let after = try XCTUnwrap(Self.json(status))
        XCTAssertEqual(after["tiles"], .number(Double(Self.smallTiles) + (after["ambient_cache"]?["tiles"]?.number ?? -1)))
        XCTAssertEqual(progress("small")?["completed_tiles"], .number(Double(Self.smallTiles)))
        unmountPackFS()
    }

    static func json(_ path: String) -> JSONValue? { FileManager.default.contents(atPath: path).flatMap(JSONValue.parse) }

    static func smallTile(_ index: Int) -> (Int, Int) { (2000 + index % 100, 2000 + index / 100) }

    /// Memberships and the region row of `region` still in the file (read beside the mount).
    static func rowsOfRegion(_ region: Int, in db: String) throws -> Int {
        let sql = "SELECT (SELECT COUNT(*) FROM region_tiles WHERE region_id = \(region)) + (SELECT COUNT(*) FROM regions WHERE id = \(region));"
        let outcome = try Command.run("/usr/bin/sqlite3", ["-readonly", db, sql])
        return Int(outcome.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Packs "big" (region 1: a 330 x 300 block) and "small" (region 2: 100 x 10), and one tile
    /// no pack holds, written with plain SQL as an app would.
    private func makeAppDatabase() throws {
        let definition = MapLibreSideFile.definition(style: "http://127.0.0.1:1/style.json")
        func tiles(region: Int, x0: Int, y0: Int, width: Int, count: Int) -> String {
            """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(count - 1))
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed)
              SELECT 'http://127.0.0.1:1/{z}/{x}/{y}.pbf', 1, 16, \(x0) + i % \(width), \(y0) + i / \(width),
                CAST(printf('tile %05d %05d', \(x0) + i % \(width), \(y0) + i / \(width)) AS BLOB), 0, 1 FROM n;
            INSERT INTO region_tiles (region_id, tile_id) SELECT \(region), id FROM tiles
              WHERE id NOT IN (SELECT tile_id FROM region_tiles) AND NOT (x = 0 AND y = 0);
            """
        }
        try MapLibreSideFile.create(db, rows: """
            INSERT INTO regions (id, definition, description) VALUES (1, '\(definition)', CAST('{"name":"big"}' AS BLOB));
            INSERT INTO regions (id, definition, description) VALUES (2, '\(definition)', CAST('{"name":"small"}' AS BLOB));
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed)
              VALUES ('http://127.0.0.1:1/{z}/{x}/{y}.pbf', 1, 16, 0, 0, x'00', 0, 1);
            \(tiles(region: 1, x0: 10, y0: 10, width: 330, count: Self.bigTiles))
            \(tiles(region: 2, x0: 2000, y0: 2000, width: 100, count: Self.smallTiles))
            """)
    }
}
