import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// The figures `status.json`, `progress.json`, `packfs list` and `packfs status` show are kept
/// by triggers (`Counting`): after any mix of changes, by PackFS or by an app writing SQL, they
/// equal a count made from scratch; a database an app filled is counted once in the background
/// and says so until then; the paths that read them scan nothing.
final class CountingTests: StoreTestCase {
    /// What a count from scratch finds: per pack, and the totals with the ambient cache.
    private func scratch(_ db: Database) throws -> (packs: [Int64: PackCounts], totals: DatabaseTotals) {
        var packs: [Int64: PackCounts] = [:]
        for id in try Int64.fetchAll(db, sql: "SELECT id FROM regions") {
            packs[id] = try OfflineDatabase.counts(of: RegionID(rawValue: id), db)
        }
        let tiles = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles") ?? -1
        let mapbox = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles WHERE url_template LIKE 'mapbox://%'") ?? -1
        let resources = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resources") ?? -1
        return (packs, DatabaseTotals(resources: resources, tiles: tiles, mapboxTiles: mapbox, ambient: try AmbientCache.usage(db)))
    }

    private func assertKeptEqualsScratch(_ database: OfflineDatabase, _ message: String, line: UInt = #line) throws {
        try database.read { db in
            let truth = try scratch(db)
            XCTAssertEqual(try Counting.totals(db), truth.totals, "totals: \(message)", line: line)
            for (id, counts) in truth.packs {
                XCTAssertEqual(try Counting.counts(of: RegionID(rawValue: id), db), counts, "pack \(id): \(message)", line: line)
            }
        }
    }

    private func put(_ batch: StoreBatch, _ z: Int, _ x: Int, bytes: Int, template: String = "http://h/{z}/{x}/{y}.pbf")
        throws -> TileID
    {
        try batch.putTile(tileKey(z, x, 0, template: template), data: .encoding(noise(bytes, seed: UInt64(z * 1000 + x + bytes))), headers: CacheHeaders())
    }

    func testKeptFiguresEqualACountFromScratchAfterEveryKindOfChange() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let a = try database.createPack(name: "a", definition: sampleDefinition())
        let b = try database.createPack(name: "b", definition: sampleDefinition())
        try assertKeptEqualsScratch(database, "two empty packs")
        var shared = TileID(rawValue: 0)
        try database.write { batch in
            for x in 0..<20 { _ = try batch.link(tile: try put(batch, 5, x, bytes: 100 + x), to: a.id) }
            shared = try put(batch, 5, 100, bytes: 300)
            _ = try batch.link(tile: shared, to: a.id)
            _ = try batch.link(tile: shared, to: b.id)
            _ = try batch.link(tile: shared, to: b.id)  // a second link of the same row changes nothing
            for x in 0..<5 { _ = try put(batch, 6, x, bytes: 50, template: "mapbox://tiles/x/{z}/{x}/{y}.pbf") }
            let style = try batch.putResource(url: "http://h/style.json", kind: .style, data: .encoding(noise(70, seed: 1)), headers: CacheHeaders())
            _ = try batch.link(resource: style, to: a.id)
            _ = try batch.link(resource: style, to: b.id)
            try batch.putResource(url: "http://h/ambient.json", kind: .source, data: .encoding(noise(40, seed: 2)), headers: CacheHeaders())
            _ = try batch.putTile(tileKey(7, 0, 0), data: StoredData(bytes: nil, compressed: false), headers: CacheHeaders())
        }
        try assertKeptEqualsScratch(database, "stored, linked, shared, ambient, mapbox, no content")
        try database.write { batch in
            _ = try put(batch, 5, 100, bytes: 900)  // the shared tile's data changes size
            try batch.unlink(tile: shared, from: a.id)
            _ = try put(batch, 5, 3, bytes: 10)  // a pack tile shrinks
        }
        try assertKeptEqualsScratch(database, "updated in place, unlinked from one of two packs")
        // An app's MapLibre on the same file: plain SQL, no PackFS code.
        try raw().write { db in
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            try db.execute(sql: "INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES ('http://app/{z}/{x}/{y}', 1, 1, 0, 0, x'0102', 0, 1)")
            try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (?, last_insert_rowid())", arguments: [b.id.rawValue])
            try db.execute(sql: "UPDATE resources SET data = x'00' WHERE url = 'http://h/style.json'")
            try db.execute(sql: "DELETE FROM resources WHERE url = 'http://h/ambient.json'")
        }
        try assertKeptEqualsScratch(database, "an app's inserts, update and delete")
        try database.removePack(a.id)
        try assertKeptEqualsScratch(database, "a pack removed (its rows ambient, then trimmed)")
        try database.setAmbientLimit(0)
        try assertKeptEqualsScratch(database, "the ambient cache emptied")
        XCTAssertEqual(try database.databaseCounts().tiles, try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM tiles") })
    }

    /// A database nobody wrote to through PackFS stays exactly MapLibre's (SchemaTests); one an
    /// app filled is not counted by a read-only open, says so, and is counted by a mount's
    /// background count, exactly, while another writer changes it.
    func testAnAppsDatabaseIsCountedOnceInTheBackgroundAndSaysSoUntilThen() throws {
        try appFilledDatabase(tiles: 3000)
        let reader = try OfflineDatabase.open(path: path, mode: .readOnly)
        let pack = try XCTUnwrap(try reader.packs().first)
        let progress = try reader.progress(of: pack.id)
        XCTAssertFalse(progress.counted)
        XCTAssertEqual(progress.json["completed_tiles"], .null)
        XCTAssertEqual(progress.json["counting"], .bool(true))
        XCTAssertFalse(try reader.databaseCounts().counted)
        XCTAssertNil(try reader.ambientUsage())
        try reader.close()

        let session = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? session.close() }
        // A writer changes the data while the count runs: the triggers count what it changes.
        let writes = DispatchGroup()
        let tiles = (0..<50).map { (tileKey(12, $0, 0), StoredData.encoding(noise(64, seed: UInt64($0)))) }
        let region = pack.id
        writes.enter()
        DispatchQueue.global().async {
            defer { writes.leave() }
            for (key, data) in tiles {
                try? session.write { batch in
                    _ = try batch.link(tile: try batch.putTile(key, data: data, headers: CacheHeaders()), to: region)
                }
            }
        }
        session.startCounting { XCTFail($0) }
        XCTAssertTrue(eventually(timeout: 60) { (try? session.progress(of: pack.id).counted) == true && (try? session.databaseCounts().counted) == true })
        writes.wait()
        try assertKeptEqualsScratch(session, "counted in the background while a writer wrote")
        XCTAssertEqual(try session.progress(of: pack.id).counts.tiles, 3050)
    }

    /// A count cut short (its row left `counting`) is not trusted: the next count starts over.
    func testACountCutShortIsCountedAgain() throws {
        try appFilledDatabase(tiles: 100)
        let session = try OfflineDatabase.open(path: path, mode: .mount)
        try session.write { batch in try Counting.begin(.totals, batch.database) }
        XCTAssertFalse(try session.databaseCounts().counted, "a row marked counting is not a figure")
        try session.close()
        let again = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? again.close() }
        again.startCounting { XCTFail($0) }
        // The totals are counted first, then each pack: wait for all of them (CI once compared a
        // pack whose count had not ended yet).
        XCTAssertTrue(eventually(timeout: 60) {
            (try? again.databaseCounts().counted) == true
                && ((try? again.packs()) ?? []).allSatisfy { (try? again.progress(of: $0.id).counted) == true }
        })
        try assertKeptEqualsScratch(again, "counted again")
    }

    /// Kept figures no file of this size can hold (negative, or past the file's bytes: an app's
    /// tool, a damaged file) read as unknown, so they never reach a sum or a conversion (`df` on
    /// the mount, status.json, progress.json), and the mount's background count counts them again.
    func testKeptFiguresThatMakeNoSenseReadAsUnknownAndAreCountedAgain() throws {
        try appFilledDatabase(tiles: 100)
        do {
            let session = try OfflineDatabase.open(path: path, mode: .mount)
            session.startCounting { XCTFail($0) }
            XCTAssertTrue(eventually(timeout: 60) { (try? session.databaseCounts().counted) == true })
            try session.close()
        }
        for damage in [
            "UPDATE packfs_pack_counts SET resources = -7", "UPDATE packfs_totals SET tiles = 4611686018427387904",
            "UPDATE packfs_totals SET ambient_bytes = -1", "UPDATE packfs_pack_counts SET tile_bytes = 9223372036854775807",
        ] {
            try raw().write { db in try db.execute(sql: damage) }
            let reader = try OfflineDatabase.open(path: path, mode: .readOnly)
            let pack = try XCTUnwrap(try reader.packs().first)
            let counts = try reader.databaseCounts()
            let progress = try reader.progress(of: pack.id)
            XCTAssertFalse(counts.counted && progress.counted, damage)
            XCTAssertGreaterThanOrEqual(counts.resources + counts.tiles, 0, damage)
            XCTAssertGreaterThanOrEqual(progress.counts.resources + progress.counts.tiles, 0, damage)
            try reader.close()

            let session = try OfflineDatabase.open(path: path, mode: .mount)
            session.startCounting { XCTFail($0) }
            XCTAssertTrue(eventually(timeout: 60) {
                (try? session.databaseCounts().counted) == true && (try? session.progress(of: pack.id).counted) == true
            }, damage)
            try assertKeptEqualsScratch(session, "counted again after \(damage)")
            try session.close()
        }
    }

    /// The paths a user waits for read kept rows: no scan of `tiles` or `region_tiles`, nor
    /// in the triggers' lookups that every change runs.
    func testFigurePathsAndTriggerLookupsScanNoTable() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        _ = try database.createPack(name: "a", definition: sampleDefinition())
        let queries = [
            "SELECT * FROM packfs_pack_counts WHERE region_id = ? AND counting = 0",
            "SELECT * FROM packfs_totals WHERE id = 1 AND counting = 0",
            "SELECT COALESCE((SELECT LENGTH(data) FROM tiles WHERE id = ?), 0)",
            "SELECT 1 FROM region_tiles WHERE tile_id = ? AND region_id != ?",
            "SELECT region_id FROM region_tiles WHERE tile_id = ?",
            "SELECT 1 FROM region_resources WHERE resource_id = ? AND region_id != ?",
            "UPDATE packfs_pack_counts SET tiles = tiles + 1 WHERE region_id IN (SELECT region_id FROM region_tiles WHERE tile_id = ?)",
        ]
        for sql in queries {
            let plan = try database.read { db in
                let parameters = [DatabaseValueConvertible?](repeating: 1, count: sql.filter { $0 == "?" }.count)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(parameters))
                    .map { $0["detail"] as String }
            }
            for step in plan where step.hasPrefix("SCAN") && step != "SCAN CONSTANT ROW" { XCTFail("\(sql)\nscans: \(step)") }
        }
    }

    /// MapLibre's schema and a pack of `tiles` tiles written with plain SQL, as an app leaves it.
    private func appFilledDatabase(tiles: Int) throws {
        try OfflineDatabase.open(path: path).close()
        try raw().write { db in
            try db.execute(sql: "INSERT INTO regions (definition, description) VALUES ('{}', x'7b226e616d65223a22617070227d')")
            let region = db.lastInsertedRowID
            for x in 0..<tiles {
                try db.execute(sql: "INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES ('http://app/{z}/{x}/{y}', 1, 14, ?, 0, randomblob(20), 0, 1)", arguments: [x])
                try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (?, last_insert_rowid())", arguments: [region])
            }
            try db.execute(sql: "INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES ('http://app/{z}/{x}/{y}', 1, 15, 0, 0, randomblob(9), 0, 1)")
        }
    }
}
