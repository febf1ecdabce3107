import Basics
import Foundation
import PackStore
import SQLiteDB
import XCTest

/// The mount's raw reads (`TreeReads`): same answers as the tree's SQL, always the latest
/// commit, and no trace left when the session closes.
final class TreeReadTests: StoreTestCase {
    func testFindsATileByKeyWithItsDataOnlyInThePackThatHoldsIt() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let other = try database.createPack(name: "b", definition: sampleDefinition())
        let stored = StoredData.encoding(Data(repeating: 7, count: 1000))
        let id = try database.write { batch -> TileID in
            let id = try batch.putTile(self.tileKey(3, 1, 2), data: stored, headers: CacheHeaders())
            try batch.link(tile: id, to: pack.id)
            return id
        }
        let found = try XCTUnwrap(try database.servedTile(.key(tileKey(3, 1, 2)), in: pack.id))
        XCTAssertEqual(found.id, id)
        XCTAssertEqual(found.content, try stored.decoded())
        // Asked not to, it finds the row and decodes nothing.
        let undecoded = try XCTUnwrap(try database.servedTile(.key(tileKey(3, 1, 2)), in: pack.id) { $0 != id })
        XCTAssertEqual(undecoded.id, id)
        XCTAssertNil(undecoded.content)
        XCTAssertEqual(try database.servedTile(.row(id), in: pack.id)?.content, try stored.decoded())
        XCTAssertEqual(try database.packTileID(tileKey(3, 1, 2), in: pack.id), id)
        XCTAssertTrue(try database.packHolds(tile: id, in: pack.id))
        XCTAssertNil(try database.servedTile(.key(tileKey(3, 1, 2)), in: other.id))
        XCTAssertNil(try database.servedTile(.row(id), in: other.id))
        XCTAssertFalse(try database.packHolds(tile: id, in: other.id))
        XCTAssertNil(try database.servedTile(.key(tileKey(3, 1, 3)), in: pack.id))
    }

    /// Listing sizes: recorded with the tile, the stored length of uncompressed content, nil
    /// (decode it) once a rewrite without a size dropped the recorded one (the upsert's own
    /// update fires the trigger), and nil for gzip content stored as is.
    func testListedSizesComeFromTheWriterAndGoWithARewrite() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let raw = Data(repeating: 7, count: 1000), gzip = Data([0x1F, 0x8B, 8, 0, 0, 0])
        try database.write { batch in
            let stores: [(Int, StoredData, Int?)] = [
                (0, .encoding(raw), raw.count), (1, StoredData(bytes: Data("abc".utf8), compressed: false), nil),
                (2, .encoding(raw), nil), (3, StoredData(bytes: gzip, compressed: false), nil),
            ]
            for (y, data, size) in stores {
                try batch.link(tile: batch.putTile(self.tileKey(3, 1, y), data: data, headers: CacheHeaders(), contentSize: size), to: pack.id)
            }
        }
        let set = TileColumnSet(region: pack.id, urlTemplate: tileKey(3, 1, 0).urlTemplate, pixelRatio: 1)
        func sizes() throws -> [Int?] {
            try database.tileRowsWithSizes(set, z: 3, x: 1, after: -1, descending: false, limit: 10).map(\.size)
        }
        XCTAssertEqual(try sizes(), [1000, 3, nil, nil])
        _ = try database.write { batch in
            try batch.putTile(self.tileKey(3, 1, 0), data: .encoding(Data(repeating: 1, count: 999)), headers: CacheHeaders())
        }
        XCTAssertEqual(try sizes(), [nil, 3, nil, nil], "the rewrite's trigger dropped the old size")
        XCTAssertEqual(try database.tileRows(set, z: 3, x: 1, after: 0, descending: true, limit: 10).map(\.y), [])
        XCTAssertEqual(try database.tileRows(set, z: 3, x: 1, after: 8, descending: true, limit: 2).map(\.y), [3, 2])
    }

    func testSeesEveryCommitAfterItsConnectionsOpened() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let url = "http://h/glyphs/0-255.pbf"
        // Opens a raw connection and leaves it idle in the pool.
        XCTAssertNil(try database.packResourceID(url: url, in: pack.id))
        let id = try database.write { batch -> ResourceID in
            let id = try batch.putResource(url: url, kind: .glyphs, data: .encoding(Data("g".utf8)), headers: CacheHeaders())
            try batch.link(resource: id, to: pack.id)
            return id
        }
        XCTAssertEqual(try database.packResourceID(url: url, in: pack.id), id)
        XCTAssertEqual(try database.packResourceData(id, in: pack.id)?.decoded(), Data("g".utf8))
        try database.write { try $0.unlink(resource: id, from: pack.id) }
        XCTAssertFalse(try database.packHolds(resource: id, in: pack.id))
        XCTAssertNil(try database.packResourceData(id, in: pack.id))
    }

    func testClosingASessionWithRawReadersLeavesOneFileInDeleteMode() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let threads = 8
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            _ = try? database.packHolds(tile: TileID(rawValue: 1), in: pack.id)
        }
        try database.close()
        XCTAssertThrowsError(try database.packHolds(tile: TileID(rawValue: 1), in: pack.id))
        XCTAssertEqual(try raw().read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "delete")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
