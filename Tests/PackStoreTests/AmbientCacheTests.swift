import Basics
import Foundation
import PackStore
import SQLiteDB
import XCTest

final class AmbientCacheTests: StoreTestCase {
    /// A pack of 2 MB and 3 MB of ambient tiles with distinct access times.
    private func populate() throws -> (OfflineDatabase, Pack) {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(name: "kept", definition: sampleDefinition())
        try database.write { batch in
            for x in 0..<64 {
                let id = try batch.putTile(self.tileKey(10, x, 0), data: .encoding(self.noise(32 * 1024, seed: UInt64(x))), headers: CacheHeaders())
                try batch.link(tile: id, to: pack.id)
            }
            for x in 0..<96 {
                try batch.putTile(self.tileKey(10, x, 1), data: .encoding(self.noise(32 * 1024, seed: UInt64(1000 + x))), headers: CacheHeaders())
            }
        }
        // Oldest access first: pack tiles are the oldest of all, to prove they are never candidates.
        try raw().write { db in
            try db.execute(sql: "UPDATE tiles SET accessed = x WHERE y = 0")
            try db.execute(sql: "UPDATE tiles SET accessed = 1000 + x WHERE y = 1")
        }
        return (database, pack)
    }

    /// What an ambient tile of `populate` costs on disk by the rule (`AmbientCache.cost`): its
    /// 32 KiB, a sixteenth more, its 24-byte template three times, no ETag, 160 bytes of row.
    static let tileCost = 32 * 1024 + 32 * 1024 / 16 + 3 * "http://h/{z}/{x}/{y}.pbf".utf8.count + 160

    func testEvictionUnderOneMegabyteKeepsEveryPackTile() throws {
        let (database, pack) = try populate()
        let before = try XCTUnwrap(database.ambientUsage())
        XCTAssertEqual(before.tiles, 96)
        XCTAssertEqual(before.bytes, Int64(96 * Self.tileCost), "the rows' cost on disk, not only their data")
        let report = try database.setAmbientLimit(1024 * 1024)
        let after = try XCTUnwrap(database.ambientUsage())
        let kept = 1024 * 1024 / Self.tileCost
        XCTAssertLessThanOrEqual(after.bytes, 1024 * 1024)
        XCTAssertEqual(after.tiles, kept, "exactly enough evicted")
        XCTAssertEqual(report.tiles, 96 - kept)
        XCTAssertEqual(try database.progress(of: pack.id).counts.tiles, 64)
        for x in 0..<96 {
            XCTAssertEqual(try database.tile(tileKey(10, x, 1)) != nil, x >= 96 - kept, "least recently accessed go first (x=\(x))")
        }
        XCTAssertEqual(try database.ambientLimit(), 1024 * 1024)
        try database.close()
        XCTAssertEqual(try OfflineDatabase.open(path: path, mode: .readOnly).ambientLimit(), 1024 * 1024, "limit persists")
    }

    func testDefaultLimitIsFiftyMebibytes() throws {
        let database = try OfflineDatabase.open(path: path)
        XCTAssertEqual(try database.ambientLimit(), 50 * 1024 * 1024)
    }

    func testClearRemovesOnlyAmbientAndReturnsSpace() throws {
        let (database, pack) = try populate()
        try database.close()
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let reopened = try OfflineDatabase.open(path: path)
        let report = try reopened.clearAmbient()
        XCTAssertEqual(report.tiles, 96)
        XCTAssertEqual(try reopened.ambientUsage()?.tiles, 0)
        XCTAssertEqual(try reopened.progress(of: pack.id).counts.tiles, 64)
        try reopened.close()
        let sizeAfter = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        XCTAssertLessThan(sizeAfter, sizeBefore - 2 * 1024 * 1024, "incremental vacuum returned the pages")
    }

    func testInvalidateMarksAmbientRowsOnly() throws {
        let (database, _) = try populate()
        XCTAssertEqual(try database.invalidateAmbient(), 96)
        try raw().read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles WHERE must_revalidate = 1 AND expires = 0"), 96)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles WHERE y = 0 AND must_revalidate = 1"), 0)
        }
    }
}
