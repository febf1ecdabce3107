import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// A pack's recorded estimate (`packfs_estimate`) and the size samples estimates are made from.
final class EstimateStoreTests: StoreTestCase {
    func testTheEstimateIsKeptShownInProgressAndDiesWithItsPack() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let pack = try database.createPack(name: "p", definition: sampleDefinition())
        XCTAssertNil(try database.progress(of: pack.id).estimate)
        XCTAssertNil(try database.progress(of: pack.id).json["estimate"], "absent before a plan recorded one")
        let estimate = JSONValue.object(["tiles": .number(25), "bytes": .number(1_234), "sources": .array([])])
        try database.setEstimate(estimate, of: pack.id)
        XCTAssertEqual(try database.progress(of: pack.id).estimate, estimate)
        XCTAssertEqual(try database.progress(of: pack.id).json["estimate"], estimate)
        try database.setEstimate(.object(["tiles": .number(26)]), of: pack.id)
        XCTAssertEqual(try database.progress(of: pack.id).estimate?["tiles"], .number(26), "replaced")
        _ = try database.removePack(pack.id)
        try database.setEstimate(estimate, of: pack.id)
        try database.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_estimate"), 0, "gone with its pack; none for a gone pack")
        }
    }

    func testADamagedEstimateReadsAsNone() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(name: "p", definition: sampleDefinition())
        try database.setEstimate(.object([:]), of: pack.id)
        try database.close()
        try raw().write { try $0.execute(sql: "UPDATE packfs_estimate SET json = '{not json'") }
        let reopened = try OfflineDatabase.open(path: path, mode: .readOnly)
        XCTAssertNil(try reopened.progress(of: pack.id).estimate)
        XCTAssertEqual(try reopened.progress(of: pack.id).status.state, .inactive)
        try reopened.close()
        try raw().write { db in
            try db.execute(sql: "DROP TABLE packfs_estimate")
            try db.execute(sql: "CREATE TABLE packfs_estimate (region_id INTEGER, other BLOB)")
        }
        let damaged = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? damaged.close() }
        XCTAssertNil(try damaged.progress(of: pack.id).estimate, "a table of the wrong shape reads as none")
    }

    func testTileSizesAreBoundedSamplesOfOneTemplateRatioAndZoom() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        try database.write { batch in
            for x in 0..<4 {
                for y in 0..<4 {
                    try batch.putTile(tileKey(3, x, y), data: StoredData(bytes: Data(count: 10 * (x + 1)), compressed: false), headers: CacheHeaders())
                }
            }
            try batch.putTile(tileKey(3, 0, 5), data: .noContent, headers: CacheHeaders())
            try batch.putTile(tileKey(3, 1, 1, template: "other"), data: StoredData(bytes: Data(count: 999), compressed: false), headers: CacheHeaders())
            try batch.putTile(tileKey(4, 1, 1), data: StoredData(bytes: Data(count: 999), compressed: false), headers: CacheHeaders())
        }
        let template = "http://h/{z}/{x}/{y}.pbf"
        // Columns 1 and 2, rows 0-1: 20, 20, 30, 30.
        XCTAssertEqual(try database.tileSizes(urlTemplate: template, pixelRatio: 1, z: 3, columns: [1, 2], rows: 0...1),
                       SizeSample(count: 4, bytes: 100))
        XCTAssertEqual(try database.tileSizes(urlTemplate: template, pixelRatio: 1, z: 3, columns: [0], rows: 4...9),
                       SizeSample(count: 1, bytes: 0), "no content counts as 0 bytes")
        XCTAssertEqual(try database.tileSizes(urlTemplate: template, pixelRatio: 1, z: 3, columns: [0, 1, 2, 3], rows: 0...3, limit: 6).count, 6)
        XCTAssertEqual(try database.tileSizes(urlTemplate: template, pixelRatio: 2, z: 3, columns: [1], rows: 0...3), SizeSample())
        XCTAssertEqual(try database.tileSizes(urlTemplate: template, pixelRatio: 1, z: 3), SizeSample(count: 17, bytes: 400))
        XCTAssertEqual(try database.tileSizes(urlTemplate: template, pixelRatio: 1, z: 3, limit: 5).count, 5)
        XCTAssertNil(SizeSample().mean)
    }

    func testResourceSizesAreStoredSizes() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        try database.write { batch in
            try batch.putResource(url: "a", kind: .glyphs, data: .encoding(Data(count: 5_000)), headers: CacheHeaders())
            try batch.putResource(url: "b", kind: .glyphs, data: .noContent, headers: CacheHeaders())
        }
        let sizes = try database.resourceSizes(["a", "b", "c"])
        XCTAssertEqual(sizes["a"], Int64(StoredData.encoding(Data(count: 5_000)).storedSize))
        XCTAssertLessThan(sizes["a"] ?? .max, 5_000, "the compressed size, as stored")
        XCTAssertEqual(sizes["b"], 0)
        XCTAssertNil(sizes["c"])
    }

    func testSizeSamplesSeekAnIndexAndNeverScan() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        for sql in SizeSQL.all {
            let plan = try database.read { db in
                let parameters = [DatabaseValueConvertible?](repeating: 1, count: sql.filter { $0 == "?" }.count)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(parameters))
                    .map { $0["detail"] as String }
            }
            XCTAssertFalse(plan.isEmpty)
            for step in plan {
                XCTAssertTrue(step.hasPrefix("SEARCH") && step.contains("INDEX"), "\(sql)\n\(step)")
            }
        }
    }
}
