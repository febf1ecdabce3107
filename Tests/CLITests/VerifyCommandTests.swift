import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// `packfs verify` on a downloaded pack (its plan made from the stored documents) and on copies
/// of it broken with raw SQL: a tile whose bytes do not inflate, a tile the plan needs gone, a
/// recorded hash that is not the tiles'. And on imported packs, whose hash the import recorded.
final class VerifyCommandTests: CLITestCase {
    func testADownloadedPackVerifiesAndEachDamageIsNamed() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let region = temp.path("region.json")
        try """
            {"style": "\(nginx.baseURL)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        let download = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(download.status, 0, download.stderr)
        let good = try packfs("verify", db, "helsinki", "--json")
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        let report = try XCTUnwrap(JSONValue.parse(Data(good.stdout.utf8)))
        XCTAssertEqual(report["planned_tiles"], .number(25))
        let sources = report["sources"]?.array ?? []
        XCTAssertFalse(sources.isEmpty)
        for source in sources { XCTAssertEqual(source["agg_tiles_hash"], source["recorded_hash"]) }

        // A stored tile whose bytes are flipped: marked compressed, it no longer inflates.
        let corrupt = try damaged("corrupt", """
            UPDATE tiles SET data = X'789C0102030405', compressed = 1
              WHERE id = (SELECT min(tile_id) FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id
                          WHERE t.data IS NOT NULL AND t.url_template LIKE '%/tiles/helsinki/%')
            """)
        let tile = try firstTile(corrupt)
        var outcome = try packfs("verify", corrupt, "helsinki")
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("tile \(tile) of source openmaptiles: marked compressed but does not inflate"), outcome.stderr)

        // A tile the plan needs, gone from the pack.
        let missing = try damaged("missing", "DELETE FROM region_tiles WHERE tile_id = (SELECT min(tile_id) FROM region_tiles)")
        outcome = try packfs("verify", missing, "helsinki")
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("the plan needs it and the pack lacks it"), outcome.stderr)

        // A recorded hash that is not the tiles'.
        let mismatch = try damaged("mismatch", "UPDATE packfs_pack_hashes SET hash = '00000000000000000000000000000000'")
        outcome = try packfs("verify", mismatch, "helsinki")
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("recorded 00000000000000000000000000000000"), outcome.stderr)
    }

    func testAnImportedPackVerifiesAgainstTheHashItsImportRecorded() throws {
        let file = try MartinFixtures.build("zoomed_world_cities", in: temp)
        XCTAssertEqual(try packfs("import", db, file, "--name", "cities").status, 0)
        let outcome = try packfs("verify", db, "cities")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("agg_tiles_hash \(MartinFixtures.hashes["zoomed_world_cities"] ?? "?") (as recorded)"),
                      outcome.stdout)
        // A stale stored hash refuses the import, naming both; the option takes it.
        let stale = try MartinFixtures.build("world_cities", in: temp)
        let refused = try packfs("import", db, stale)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains(MartinFixtures.staleHashes["world_cities"] ?? "?"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains(MartinFixtures.hashes["world_cities"] ?? "?"), refused.stderr)
        XCTAssertEqual(try packfs("import", db, stale, "--accept-hash-mismatch").status, 0)
        XCTAssertEqual(try packfs("verify", db, "world_cities").status, 0)
    }

    /// A pack of several batches' worth of tiles (`SourceWalk.Budget.command`), hashed and
    /// checked on other threads than the walk's: the hash is the import's (the batches hashed in
    /// order), and damaged tiles in different batches are each named.
    func testAPackOfManyBatchesVerifiesInOrderAndNamesEachDamagedTile() throws {
        let file = temp.path("many.mbtiles")
        let queue = try DatabaseQueue(path: file)
        var generator = SystemRandomNumberGenerator()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE metadata (name text, value text);
                CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
                INSERT INTO metadata VALUES ('name', 'many'), ('format', 'pbf'), ('minzoom', '10'), ('maxzoom', '10');
                """)
            for index in 0..<1_500 {
                // A layer named "l" holding an unknown field of 8 KB of noise (so the gzip stays that large).
                let noise = (0..<8_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let layer: [UInt8] = [0x0A, 0x01, 0x6C, 0x7A, 0xC0, 0x3E] + noise
                let tile = Data([0x1A, 0xC6, 0x3E] + layer)
                try db.execute(sql: "INSERT INTO tiles VALUES (10, ?, ?, ?)",
                               arguments: [500 + index / 40, 300 + index % 40, try Zlib.gzip(tile)])
            }
        }
        try queue.close()
        XCTAssertEqual(try packfs("import", db, file, "--name", "many").status, 0)
        let good = try packfs("verify", db, "many")
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertTrue(good.stdout.contains("1500 tiles") && good.stdout.contains("(as recorded)"), good.stdout)

        // Gzipped bytes that are no protobuf, in the first, a middle and the last batch (TMS rows 300, 320, 319: the last column is half full).
        let broken = try Zlib.gzip(Data([0xFF, 0xFF, 0xFF]))
        let damaged = try damaged("many-broken", """
            UPDATE tiles SET data = X'\(broken.map { String(format: "%02X", $0) }.joined())'
              WHERE z = 10 AND (x, y) IN (VALUES (500, 723), (518, 703), (537, 704))
            """)
        let outcome = try packfs("verify", damaged, "many")
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        for (x, y) in [(500, 723), (518, 703), (537, 704)] {  // XYZ rows, as the store keeps them
            XCTAssertTrue(outcome.stderr.contains("tile 10/\(x)/\(y) of source "), outcome.stderr)
        }
        XCTAssertTrue(outcome.stderr.contains("not a vector tile"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("recorded"), outcome.stderr)
    }

    /// A copy of `db` changed by `sql`.
    private func damaged(_ name: String, _ sql: String) throws -> String {
        let path = temp.path("\(name).db")
        try FileManager.default.copyItem(atPath: db, toPath: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: sql) }
        try queue.close()
        return path
    }

    /// z/x/y of the tile the corrupt copy changed.
    private func firstTile(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT z, x, y FROM tiles WHERE data = X'789C0102030405'"))
            return "\(row[0] as Int)/\(row[1] as Int)/\(row[2] as Int)"
        }
    }
}
