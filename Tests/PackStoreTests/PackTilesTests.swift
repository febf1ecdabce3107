import Basics
import Foundation
@testable import PackStore
import SQLiteDB
import XCTest

/// Each pack's tiles kept by key (`PackTiles`): a listing reads them, and they stay what the tiles, memberships
/// and sizes say whatever an app changes with plain SQL, as MapLibre would, in any order.
final class PackTilesTests: StoreTestCase {
    func testKeptTilesFollowAnAppsChanges() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let other = try database.createPack(name: "b", definition: sampleDefinition())
        let content = Data(repeating: 7, count: 1000)
        try database.write { batch in
            for y in 0..<8 {
                let id = try batch.putTile(self.tileKey(3, 1, y), data: .encoding(content), headers: CacheHeaders(), contentSize: 1000)
                try batch.link(tile: id, to: y < 6 ? pack.id : other.id)
            }
        }
        let set = TileColumnSet(region: pack.id, urlTemplate: tileKey(3, 1, 0).urlTemplate, pixelRatio: 1)
        func listed() throws -> [String] {
            try database.tileRowsWithSizes(set, z: 3, x: 1, after: -1, descending: false, limit: 20).map {
                "\($0.y):\($0.size.map(String.init) ?? "?")"
            }
        }
        XCTAssertTrue(try database.read { try PackTiles.ready(pack.id, $0) })
        XCTAssertEqual(try listed(), (0..<6).map { "\($0):1000" })
        try assertKeptTilesAreTheTruth(rows: 8)

        try appChanges(pack: pack.id)
        let expected = ["0:5", "3:1000", "4:4", "5:1000", "6:1000", "7:1000"]
        XCTAssertEqual(try listed(), expected)
        XCTAssertEqual(try database.tileRows(set, z: 3, x: 1, after: 7, descending: true, limit: 3).map(\.y), [6, 5, 4])
        try assertKeptTilesAreTheTruth(rows: 8)
        // Listed as a pack made before the table (TreeSQL), it is the same.
        try raw().writeWithoutTransaction { try $0.execute(sql: "DELETE FROM packfs_pack_tiles_ready") }
        XCTAssertEqual(try listed(), expected)
    }

    /// A pack whose tiles are kept is listed from them alone, page after page: its extents, which narrow the
    /// tiles index's range for a pack without them, are not read (here one is made wrong to show it).
    func testAKeptPacksPagesDoNotReadItsExtents() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        try database.write { batch in
            for y in 0..<6 {
                let id = try batch.putTile(self.tileKey(3, 1, y), data: .encoding(Data([UInt8(y)])), headers: CacheHeaders(), contentSize: 1)
                try batch.link(tile: id, to: pack.id)
            }
        }
        let set = TileColumnSet(region: pack.id, urlTemplate: tileKey(3, 1, 0).urlTemplate, pixelRatio: 1)
        func listed() throws -> [Int] {
            try database.tileRowsWithSizes(set, z: 3, x: 1, after: -1, descending: false, limit: 20).map(\.y)
        }
        XCTAssertTrue(try database.read { try PackTiles.ready(pack.id, $0) })
        XCTAssertTrue(try database.read { try OfflineDatabase.extentsReady(pack.id, $0) })
        try raw().writeWithoutTransaction { db in
            try db.execute(sql: "UPDATE packfs_pack_extents SET min_y = 2, max_y = 3 WHERE region_id = ?", arguments: [pack.id.rawValue])
        }
        XCTAssertEqual(try listed(), Array(0..<6), "the kept tiles, whatever the extent says")
        XCTAssertEqual(try database.tileRows(set, z: 3, x: 1, after: 0, descending: false, limit: 2).map(\.y), [1, 2])
        // Without kept tiles the extent bounds the tiles index's range: the wrong one shows.
        try raw().writeWithoutTransaction { try $0.execute(sql: "DELETE FROM packfs_pack_tiles_ready") }
        XCTAssertEqual(try listed(), [2, 3])
    }

    /// An app's file whose region rows it deletes with the cascade, and a reused region id that finds
    /// memberships left behind: the latter is not listed from the table.
    func testARegionGoingTakesItsRowsAndAReusedIdWithLeftoversIsNotKept() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        try database.write { batch in
            _ = try batch.link(tile: batch.putTile(self.tileKey(3, 1, 0), data: .encoding(Data("t".utf8)), headers: CacheHeaders()), to: pack.id)
        }
        try database.close()
        let id = pack.id.rawValue
        try raw().writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM regions WHERE id = \(id)")  // foreign keys on: the cascade
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_pack_tiles"), 0)
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) SELECT \(id), id FROM tiles")
            try db.execute(sql: "INSERT INTO regions (id, definition) VALUES (\(id), '{}')")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_pack_tiles_ready WHERE region_id = \(id)"), 0)
        }
    }

    /// As an app writes, on its own connection, foreign keys off so that a tile can go before its memberships.
    private func appChanges(pack: RegionID) throws {
        let id = { (y: Int) in "(SELECT id FROM tiles WHERE z = 3 AND x = 1 AND y = \(y))" }
        try raw().writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            for statement in [
                "UPDATE tiles SET data = CAST('plain' AS BLOB), compressed = 0 WHERE id = \(id(0))",  // size: its length
                "UPDATE tiles SET data = NULL WHERE id = \(id(1))",  // no content: not a file
                "DELETE FROM region_tiles WHERE tile_id = \(id(2))",
                "DELETE FROM tiles WHERE id = \(id(3))",  // its membership left behind
                "UPDATE tiles SET y = 3 WHERE id = \(id(4))",  // to where the deleted tile was
                "UPDATE region_tiles SET region_id = \(pack.rawValue) WHERE tile_id = \(id(6))",  // moved from b
                "INSERT INTO region_tiles (region_id, tile_id) VALUES (\(pack.rawValue), \(id(7)))",  // in both
                // A membership before its tile.
                "INSERT INTO region_tiles (region_id, tile_id) VALUES (\(pack.rawValue), 1000)",
                """
                INSERT INTO tiles (id, url_template, pixel_ratio, z, x, y, data, compressed, accessed)
                  VALUES (1000, 'http://h/{z}/{x}/{y}.pbf', 1, 3, 1, 4, CAST('late' AS BLOB), 0, 0)
                """,
            ] {
                try db.execute(sql: statement)
            }
        }
    }

    /// The kept rows are exactly each membership's tile key, row and recorded size (`rows` of them).
    private func assertKeptTilesAreTheTruth(rows: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let truth = """
            SELECT rt.region_id, t.url_template, t.pixel_ratio, t.z, t.x, t.y, t.id, s.size
              FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id LEFT JOIN packfs_tile_sizes s ON s.tile_id = t.id
            """
        let kept = "SELECT region_id, url_template, pixel_ratio, z, x, y, tile_id, size FROM packfs_pack_tiles"
        try raw().read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(truth) EXCEPT \(kept))"), 0, "missing", file: file, line: line)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(kept) EXCEPT \(truth))"), 0, "wrong", file: file, line: line)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_pack_tiles"), rows, file: file, line: line)
        }
    }
}
