import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

@testable import Interchange

/// martin's `agg_tiles_hash`: equal to martin's figures for martin's fixtures, stable through
/// import -> export -> import, written by the exports, checked by the import.
final class AggTilesHashTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .command }

    func testNoTilesHashesAsMD5OfNothing() {
        XCTAssertEqual(TileSetHash().hex, "D41D8CD98F00B204E9800998ECF8427E")
    }

    /// The digits written into a stack buffer give the hash of martin's decimal texts.
    func testCoordinatesHashAsTheirDecimalTexts() {
        let edges = [0, 9, 10, 99, 100, 12_345, (1 << 24) - 1, 1 << 24, -1, -10, Int.max, Int.min]
        for z in edges {
            for column in [0, 9, 10, (1 << 24) - 1, Int.min] {
                let tile = Data([0x1F, 0x8B, UInt8(truncatingIfNeeded: z)])
                var hash = TileSetHash()
                hash.add(z: z, column: column, tmsRow: z, data: tile)
                hash.add(z: column, column: z, tmsRow: 10, data: Data())
                var texts = MD5()
                for text in [String(z), String(column), String(z)] { texts.update(text) }
                texts.update(tile)
                for text in [String(column), String(z), "10"] { texts.update(text) }
                XCTAssertEqual(hash.hex, texts.hex(), "\(z)/\(column)")
                XCTAssertEqual(hash.tiles, 2)
            }
        }
    }

    func testMartinsFixturesHashAsMartinComputesAndTheImportRecordsIt() throws {
        for (name, expected) in MartinFixtures.hashes.sorted(by: { $0.key < $1.key }) {
            let file = try MartinFixtures.build(name, in: temp)
            let stale = MartinFixtures.staleHashes[name] != nil
            let pack = try MBTilesImport(path: file, acceptHashMismatch: stale).write(into: database).pack
            XCTAssertEqual(try PackHash.compute(pack, in: database).map(\.hash), [expected], name)
            XCTAssertEqual(try database.recordedHashes(of: pack.id).map(\.hash), [expected], name)
        }
    }

    func testImportExportHashIsStableAndTheExportKeepsTheMetadata() throws {
        let (file, pack) = try importWorldCities()
        let out = temp.path("out.mbtiles")
        _ = try MBTilesExport(database: database, pack: pack).write(to: out)
        let original = try MBTilesRows.metadata(of: file)
        let exported = try MBTilesRows.metadata(of: out)
        XCTAssertEqual(exported["agg_tiles_hash"], MartinFixtures.hashes["world_cities"])
        XCTAssertEqual(try MBTilesRows.hash(of: out), MartinFixtures.hashes["world_cities"])
        for key in ["type", "version", "description", "name", "json", "format"] {
            XCTAssertEqual(exported[key], original[key], key)
        }
        XCTAssertEqual(exported["type"], "overlay")
        // And back: the exported file imports (its hash agrees) to the same hash.
        let again = try MBTilesImport(path: out, name: "again").write(into: database).pack
        XCTAssertEqual(try database.recordedHashes(of: again.id).map(\.hash), [MartinFixtures.hashes["world_cities"]])
    }

    func testRawVectorTilesHashAsTheirGzippedExportInTMSOrder() throws {
        // A column of three rows, stored raw (not gzipped): the export gzips them, and the pack's
        // hash is the hash of the exported file, rows in TMS order.
        let file = try makeMBTiles("raw.mbtiles", metadata: ["format": "pbf"],
                                   tiles: (0..<3).map { (2, 1, $0, Data("raw \($0)".utf8)) })
        let pack = try MBTilesImport(path: file).write(into: database).pack
        let out = temp.path("raw-out.mbtiles")
        _ = try MBTilesExport(database: database, pack: pack).write(to: out)
        let recorded = try XCTUnwrap(database.recordedHashes(of: pack.id).first)
        XCTAssertEqual(recorded.tiles, 3)
        XCTAssertEqual(try MBTilesRows.hash(of: out), recorded.hash)
        XCTAssertEqual(try MBTilesRows.metadata(of: out)["agg_tiles_hash"], recorded.hash)
        var expected = TileSetHash()
        for row in 0..<3 { expected.add(z: 2, column: 1, tmsRow: row, data: try Zlib.gzip(Data("raw \(row)".utf8))) }
        XCTAssertEqual(recorded.hash, expected.hex)
    }

    func testATamperedFileIsRefusedNamingBothHashesAndWritesNothing() throws {
        // zoomed_world_cities's stored hash is current: one byte of one tile changed makes it wrong.
        let file = try MartinFixtures.build("zoomed_world_cities", in: temp)
        XCTAssertNoThrow(try MBTilesImport(path: file, name: "good").write(into: database))
        let queue = try DatabaseQueue(path: file)
        try queue.write { db in
            try db.execute(sql: """
                UPDATE tiles_with_hash SET tile_data = CAST(substr(tile_data, 1, 20) || X'00' || substr(tile_data, 22) AS BLOB)
                  WHERE rowid = (SELECT min(rowid) FROM tiles_with_hash)
                """)
        }
        try queue.close()
        let stored = try XCTUnwrap(MartinFixtures.hashes["zoomed_world_cities"])
        let computed = try MBTilesRows.hash(of: file)
        XCTAssertNotEqual(computed, stored)
        XCTAssertThrowsError(try MBTilesImport(path: file, name: "bad").write(into: database)) { error in
            XCTAssertEqual(
                error as? InterchangeError, .hashMismatch(file: "zoomed_world_cities.mbtiles", stored: stored, computed: computed))
            let line = String(describing: error)
            XCTAssertTrue(line.contains(stored) && line.contains(computed), line)
        }
        XCTAssertEqual(try database.packs().map(\.name), ["good"])
        let pack = try MBTilesImport(path: file, name: "bad", acceptHashMismatch: true).write(into: database).pack
        XCTAssertEqual(try database.recordedHashes(of: pack.id).map(\.hash), [computed])
    }

    func testAStaleStoredHashIsRefusedToo() throws {
        // martin's world_cities dump carries a hash its tiles no longer have.
        let file = try MartinFixtures.build("world_cities", in: temp)
        XCTAssertThrowsError(try MBTilesImport(path: file).write(into: database)) { error in
            XCTAssertEqual(error as? InterchangeError, .hashMismatch(
                file: "world_cities.mbtiles", stored: MartinFixtures.staleHashes["world_cities"] ?? "?",
                computed: MartinFixtures.hashes["world_cities"] ?? "?"))
        }
        XCTAssertEqual(try database.packs().count, 0)
    }

    func testThePMTilesExportCarriesTheHash() throws {
        let pack = try importWorldCities().pack
        let out = temp.path("out.pmtiles")
        _ = try PMTilesExport(database: database, pack: pack).write(to: out)
        let archive = try PMTilesReader(path: out)
        XCTAssertEqual(try archive.metadata()["agg_tiles_hash"], .string(MartinFixtures.hashes["world_cities"] ?? "?"))
    }

    /// martin's world_cities file and its import (its stored hash is stale: accepted).
    private func importWorldCities() throws -> (file: String, pack: Pack) {
        let file = try MartinFixtures.build("world_cities", in: temp)
        return (file, try MBTilesImport(path: file, acceptHashMismatch: true).write(into: database).pack)
    }
}
