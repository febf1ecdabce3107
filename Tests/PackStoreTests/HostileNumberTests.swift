import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Values of a damaged file where the store reads numbers it did not check before: a tile's
/// `data` holding an integer, PackFS's own extents and kept counts holding text or a count near
/// Int.max. Each read fails alone with an error naming the column, or leaves the row out; none
/// traps.
final class HostileNumberTests: StoreTestCase {
    private let template = "http://h/{z}/{x}/{y}.pbf"

    /// A pack holding tiles 3/1/1, 3/1/2 and 3/2/2.
    private func pack(_ database: OfflineDatabase) throws -> RegionID {
        let region = try database.createPack(name: "p", definition: sampleDefinition()).id
        try database.write { batch in
            for (x, y) in [(1, 1), (1, 2), (2, 2)] {
                let id = try batch.putTile(tileKey(3, x, y, template: template), data: .encoding(noise(16, seed: UInt64(x * 8 + y))), headers: CacheHeaders())
                try batch.link(tile: id, to: region)
            }
        }
        return region
    }

    func testATileWhoseDataIsANumberIsAnErrorNamingTheColumn() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        _ = try pack(database)
        try raw().write { db in
            try db.execute(sql: "UPDATE tiles SET data = 5 WHERE x = 1 AND y = 1")
            try db.execute(sql: "UPDATE tiles SET compressed = 'yes' WHERE x = 1 AND y = 2")
        }
        XCTAssertThrowsError(try database.write { try $0.storedData(of: self.tileKey(3, 1, 1, template: self.template)) }) { error in
            XCTAssertTrue(String(describing: error).contains("tiles.data"), "\(error)")
        }
        // A flag that is no number reads as "not compressed", as every other reader takes it.
        let flagged = try database.write { try $0.storedData(of: self.tileKey(3, 1, 2, template: self.template)) }
        XCTAssertEqual(flagged?.compressed, false)
        XCTAssertNotNil(flagged?.bytes)
    }

    /// A damaged row of PackFS's extents (z as text, a row bound as a real) leaves its column
    /// out of the export's walk; the others are walked.
    func testADamagedExtentLeavesItsColumnOutOfTheWalk() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let region = try pack(database)
        try raw().write { db in
            try db.execute(sql: "UPDATE packfs_pack_extents SET z = 'abc' WHERE region_id = ? AND x = 1", arguments: [region.rawValue])
            try db.execute(sql: "INSERT INTO packfs_pack_extents VALUES (?, ?, 1, 3, 5, 0.5, 7)", arguments: [region.rawValue, template])
        }
        var walked: [String] = []
        try database.forEachPackTile(TileColumnSet(region: region, urlTemplate: template, pixelRatio: 1)) { z, x, y, _ in
            walked.append("\(z)/\(x)/\(y)")
        }
        XCTAssertEqual(walked, ["3/2/2"])
    }

    /// Kept counts near Int.max (a damaged file, without extents: the path that compares the
    /// pack's count with the database's) choose a plan; they do not overflow.
    func testAKeptCountNearIntMaxDoesNotOverflow() throws {
        let region: RegionID
        do {
            let database = try OfflineDatabase.open(path: path)
            region = try pack(database)
            try database.close()
        }
        try raw().write { db in
            try db.execute(sql: "DROP TABLE packfs_pack_extents")
            try db.execute(sql: "UPDATE packfs_pack_counts SET tiles = ? WHERE region_id = ?", arguments: [Int64(1) << 62, region.rawValue])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_totals WHERE counting = 0"), 1)
        }
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? database.close() }
        XCTAssertEqual(try database.packTileSets(of: region), [TileColumnSet(region: region, urlTemplate: template, pixelRatio: 1)])
    }
}
