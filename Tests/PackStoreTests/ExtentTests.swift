import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// A pack's extents (`Extents`) cover every tile it holds, whoever wrote the membership, and the
/// tree's answers through them equal the answers of the `tiles` index alone; a database an app
/// filled, or one PackFS kept figures for before it kept extents, gets them from its background
/// count; and their queries seek, never scan.
final class ExtentTests: StoreTestCase {
    private let template = "http://h/{z}/{x}/{y}.pbf"

    /// A big pack (z 10, columns 0-39, rows 0-99) and a small one inside it and beside it, on
    /// the same template: some tiles shared, one without content, one at another zoom.
    private func twoPacks(_ database: OfflineDatabase) throws -> (big: RegionID, small: RegionID) {
        let big = try database.createPack(name: "big", definition: sampleDefinition()).id
        let small = try database.createPack(name: "small", definition: sampleDefinition()).id
        try database.write { batch in
            func tile(_ z: Int, _ x: Int, _ y: Int, content: Bool = true) throws -> TileID {
                let data = content ? StoredData.encoding(noise(24, seed: UInt64(z << 20 | x << 10 | y))) : StoredData(bytes: nil, compressed: false)
                return try batch.putTile(tileKey(z, x, y, template: template), data: data, headers: CacheHeaders())
            }
            for x in 0..<40 { for y in 0..<100 { _ = try batch.link(tile: try tile(10, x, y), to: big) } }
            for x in 10...12 { for y in 50...52 { _ = try batch.link(tile: try tile(10, x, y), to: small) } }
            _ = try batch.link(tile: try tile(10, 500, 7), to: small)
            _ = try batch.link(tile: try tile(10, 501, 9, content: false), to: small)
            _ = try batch.link(tile: try tile(11, 1000, 1000), to: small)
        }
        return (big, small)
    }

    /// What the tree must answer for `region`, from a plain join of its memberships.
    private func truth(_ region: RegionID, _ db: Database) throws -> [Int: [Int: [Int]]] {
        var tree: [Int: [Int: [Int]]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT t.z, t.x, t.y FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id
              WHERE rt.region_id = ? AND t.data IS NOT NULL ORDER BY t.z, t.x, t.y
            """, arguments: [region.rawValue])
        {
            tree[row[0], default: [:]][row[1], default: []].append(row[2])
        }
        return tree
    }

    /// The tree as the mount's queries answer it.
    private func listed(_ set: TileColumnSet, _ database: OfflineDatabase) throws -> [Int: [Int: [Int]]] {
        var tree: [Int: [Int: [Int]]] = [:]
        for z in try database.tileZooms(set) {
            XCTAssertTrue(try database.hasTiles(set, z: z))
            for x in try database.tileColumns(set, z: z, after: -1, limit: 10_000) {
                XCTAssertTrue(try database.hasTiles(set, z: z, x: x))
                let rows = try database.tileRows(set, z: z, x: x, after: -1, descending: false, limit: 10_000).map(\.y)
                let sized = try database.tileRowsWithSizes(set, z: z, x: x, after: -1, descending: false, limit: 10_000)
                XCTAssertEqual(sized.map(\.y), rows)
                tree[z, default: [:]][x] = rows
            }
        }
        return tree
    }

    private func ready(_ region: RegionID, _ database: OfflineDatabase) throws -> Bool {
        try database.read { try OfflineDatabase.extentsReady(region, $0) }
    }

    /// Every membership lies inside an extent of its pack.
    private func assertCovered(_ database: OfflineDatabase, line: UInt = #line) throws {
        let outside = try database.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id
                  WHERE NOT EXISTS (SELECT 1 FROM packfs_pack_extents e WHERE e.region_id = rt.region_id
                    AND e.url_template = t.url_template AND e.pixel_ratio = t.pixel_ratio AND e.z = t.z AND e.x = t.x
                    AND t.y BETWEEN e.min_y AND e.max_y)
                """)
        }
        XCTAssertEqual(outside, 0, "memberships outside their pack's extents", line: line)
    }

    func testListingsThroughExtentsEqualThePacksOwnTiles() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (big, small) = try twoPacks(database)
        XCTAssertTrue(try ready(small, database))
        try assertCovered(database)
        for region in [big, small] {
            let sets = try database.packTileSets(of: region)
            XCTAssertEqual(sets, [TileColumnSet(region: region, urlTemplate: template, pixelRatio: 1)])
            let truth: [Int: [Int: [Int]]] = try database.read { try self.truth(region, $0) }
            XCTAssertEqual(try listed(sets[0], database), truth, "pack \(region)")
            var walked: [Int: [Int: [Int]]] = [:]
            try database.forEachPackTile(sets[0]) { z, x, y, _ in walked[z, default: [:]][x, default: []].append(y) }
            XCTAssertEqual(walked, truth, "the export's walk of pack \(region)")
            // Rows downward within each column, columns still by z then x: MBTiles' TMS order.
            var sequence: [(z: Int, x: Int, y: Int)] = []
            try database.forEachPackTile(sets[0], descendingRows: true) { z, x, y, _ in sequence.append((z, x, y)) }
            XCTAssertEqual(sequence.map { "\($0.z)/\($0.x)/\($0.y)" }, sequence.sorted { a, b in
                (a.z, a.x, -a.y) < (b.z, b.x, -b.y)
            }.map { "\($0.z)/\($0.x)/\($0.y)" }, "pack \(region)")
            XCTAssertEqual(sequence.count, walked.values.flatMap(\.values).map(\.count).reduce(0, +))
        }
        let set = TileColumnSet(region: small, urlTemplate: template, pixelRatio: 1)
        // The sample (a source's image format) is one of the pack's own tiles, not the neighbour's
        // first, and found through the extents.
        let sample = try XCTUnwrap(try database.sampleTile(set))
        XCTAssertTrue(try database.read { try self.truth(small, $0) }[sample.key.z]?[sample.key.x]?.contains(sample.key.y) == true)
        XCTAssertFalse(try database.hasTiles(set, z: 10, x: 501), "a column of tiles without content is not listed")
        XCTAssertFalse(try database.hasTiles(set, z: 10, x: 20), "the neighbour's column")
        XCTAssertFalse(try database.hasTiles(set, z: 12))
        XCTAssertEqual(try database.tileRows(set, z: 10, x: 11, after: 50, descending: false, limit: 1).map(\.y), [51])
        XCTAssertEqual(try database.tileRows(set, z: 10, x: 11, after: 52, descending: true, limit: 5).map(\.y), [51, 50])
    }

    /// An app's plain SQL (a membership added; one taken away) keeps the extents covering; a
    /// removed pack's extents go with it.
    func testAppWritesAreCoveredAndARemovalTakesTheExtents() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (big, small) = try twoPacks(database)
        try raw().write { db in
            try db.execute(sql: "INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES (?, 1, 10, 11, 900, x'0102', 0, 1)", arguments: [template])
            try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (?, last_insert_rowid())", arguments: [small.rawValue])
            try db.execute(sql: "DELETE FROM region_tiles WHERE region_id = ? AND tile_id IN (SELECT id FROM tiles WHERE x = 12 AND y = 51)", arguments: [small.rawValue])
        }
        try assertCovered(database)
        let set = TileColumnSet(region: small, urlTemplate: template, pixelRatio: 1)
        XCTAssertEqual(try listed(set, database), try database.read { try truth(small, $0) })
        try database.removePack(big)
        XCTAssertEqual(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM packfs_pack_extents WHERE region_id = ?", arguments: [big.rawValue]) }, 0)
    }

    /// A file PackFS kept figures for before it kept extents: the first write marks its packs
    /// to be counted again, the tree answers through the index meanwhile, and the mount's
    /// background count measures the extents (with a writer adding tiles during the count).
    func testAFileWithoutExtentsGetsThemFromTheBackgroundCount() throws {
        var regions: (big: RegionID, small: RegionID)?
        do {
            let database = try OfflineDatabase.open(path: path)
            regions = try twoPacks(database)
            try database.close()
        }
        let (big, small) = try XCTUnwrap(regions)
        try raw().write { db in
            try db.execute(sql: "DROP TABLE packfs_pack_extents")
            for trigger in ["packfs_extents_region_tiles_insert", "packfs_extents_region_insert"] { try db.execute(sql: "DROP TRIGGER \(trigger)") }
        }
        let session = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? session.close() }
        try session.write { batch in
            _ = try batch.link(tile: try batch.putTile(tileKey(10, 300, 3, template: template), data: .encoding(noise(10, seed: 9)), headers: CacheHeaders()), to: small)
        }
        XCTAssertFalse(try ready(small, session), "packs counted before extents are counted again")
        let set = TileColumnSet(region: small, urlTemplate: template, pixelRatio: 1)
        XCTAssertEqual(try listed(set, session), try session.read { try truth(small, $0) }, "through the index meanwhile")
        // The hash's walk without extents: column by column, rows downward.
        var downward: [Int: [Int: [Int]]] = [:]
        try session.forEachPackTile(set, descendingRows: true) { z, x, y, _ in downward[z, default: [:]][x, default: []].append(y) }
        XCTAssertEqual(downward, try session.read { try truth(small, $0) }.mapValues { $0.mapValues { Array($0.reversed()) } })
        XCTAssertEqual(try session.packTileSets(of: small), [set], "an uncounted pack's sets, through its memberships")
        XCTAssertEqual(try session.packTileSets(of: big), [TileColumnSet(region: big, urlTemplate: template, pixelRatio: 1)])
        session.startCounting { XCTFail($0) }
        XCTAssertTrue(eventually(timeout: 60) { (try? self.ready(small, session)) == true && (try? self.ready(big, session)) == true })
        try assertCovered(session)
        XCTAssertEqual(try listed(set, session), try session.read { try truth(small, $0) })
    }

    func testExtentQueriesSeekAndNeverScan() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        _ = try twoPacks(database)
        typealias SQL = OfflineDatabase.ExtentSQL
        let keys = [
            SQL.ready, SQL.extent, SQL.nextZoom, SQL.zoomProbe, SQL.sample, SQL.columns, SQL.nextTemplate,
            SQL.nextRatio, SQL.setProbe,
        ]
        for sql in keys.map(\.sql) {
            let plan = try database.read { db in
                // `?1`...`?6` name a parameter more than once: as many as distinct names.
                let numbered = Set(sql.matches(of: /\?[0-9]/).map { String(sql[$0.range]) })
                let count = numbered.isEmpty ? sql.filter { $0 == "?" }.count : numbered.count
                let parameters = [DatabaseValueConvertible?](repeating: 1, count: count)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(parameters))
                    .map { $0["detail"] as String }
            }
            for step in plan where step.hasPrefix("SCAN") { XCTFail("\(sql)\nscans: \(step)") }
            XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "\(sql): \(plan)")
        }
    }
}
