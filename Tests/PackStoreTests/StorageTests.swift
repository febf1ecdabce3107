import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Resources and tiles: the zlib rule, no-content rows, validators, row ids kept on update.
final class StorageTests: StoreTestCase {
    func testCompressesOnlyWhenStrictlySmallerInZlibFormat() throws {
        let text = Data(String(repeating: "road ", count: 2000).utf8)
        let random = noise(3000, seed: 7)
        let database = try OfflineDatabase.open(path: path)
        try database.write { batch in
            try batch.putResource(url: "http://h/a.json", kind: .source, data: .encoding(text), headers: CacheHeaders())
            try batch.putResource(url: "http://h/b.png", kind: .image, data: .encoding(random), headers: CacheHeaders())
        }
        try database.close()
        try raw().read { db in
            let a = try Row.fetchOne(db, sql: "SELECT data, compressed FROM resources WHERE url = 'http://h/a.json'")!
            XCTAssertEqual(a["compressed"] as Int, 1)
            let stored: Data = a["data"]
            XCTAssertLessThan(stored.count, text.count)
            XCTAssertEqual(stored.prefix(2), Data([0x78, 0x9C]), "zlib header, default level")
            XCTAssertEqual(try Zlib.inflate(stored, windowBits: 15), text, "plain zlib, as compress() writes")
            let b = try Row.fetchOne(db, sql: "SELECT data, compressed FROM resources WHERE url = 'http://h/b.png'")!
            XCTAssertEqual(b["compressed"] as Int, 0)
            XCTAssertEqual(b["data"] as Data, random)
        }
    }

    func testReadsGzipDataWrittenByOtherApps() throws {
        let database = try OfflineDatabase.open(path: path)
        try database.close()
        let body = Data(String(repeating: "glyph ", count: 500).utf8)
        let gzip = try Command.gzip(body)
        try raw().write { db in
            try db.execute(sql: """
                INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed)
                VALUES ('t', 1, 0, 0, 0, ?, 1, 0)
                """, arguments: [gzip])
        }
        let reopened = try OfflineDatabase.open(path: path, mode: .readOnly)
        XCTAssertEqual(try reopened.tile(TileKey(urlTemplate: "t", pixelRatio: 1, z: 0, x: 0, y: 0))?.data.decoded(), body)
    }

    func testNoContentIsNullDataAndValidatorsRoundTrip() throws {
        let database = try OfflineDatabase.open(path: path)
        let headers = CacheHeaders(expires: 1_900_000_000, modified: 1_700_000_000, etag: "\"abc\"", mustRevalidate: true)
        _ = try database.write { try $0.putTile(self.tileKey(3, 1, 2), data: .noContent, headers: headers) }
        let tile = try XCTUnwrap(database.tile(tileKey(3, 1, 2)))
        XCTAssertNil(tile.data.bytes)
        XCTAssertNil(try tile.data.decoded())
        XCTAssertEqual(tile.headers, headers)
        try raw().read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles WHERE data IS NULL"), 1)
        }
    }

    func testUpdatesKeepRowIdsAndRenewAccessed() throws {
        let database = try OfflineDatabase.open(path: path)
        let first = try database.write {
            try $0.putResource(url: "http://h/s.json", kind: .style, data: .encoding(Data("{}".utf8)), headers: CacheHeaders(etag: "1"))
        }
        try raw().write { try $0.execute(sql: "UPDATE resources SET accessed = 5") }
        let second = try database.write {
            try $0.putResource(url: "http://h/s.json", kind: .style, data: .encoding(Data("{\"v\":8}".utf8)), headers: CacheHeaders(etag: "2"))
        }
        XCTAssertEqual(first, second)
        let stored = try XCTUnwrap(database.resource(url: "http://h/s.json"))
        XCTAssertEqual(stored.headers.etag, "2")
        XCTAssertEqual(try stored.data.decoded(), Data("{\"v\":8}".utf8))
        XCTAssertGreaterThan(stored.accessed, 1_600_000_000)
        try raw().write { try $0.execute(sql: "UPDATE resources SET accessed = 5") }
        try database.markAccessed(resourceURL: "http://h/s.json")
        XCTAssertGreaterThan(try XCTUnwrap(database.resource(url: "http://h/s.json")).accessed, 5)
    }

    func testRevalidationKeepsContentAndRenewsHeaders() throws {
        let database = try OfflineDatabase.open(path: path)
        _ = try database.write {
            try $0.putTile(self.tileKey(1, 1, 1), data: .encoding(Data("x".utf8)), headers: CacheHeaders(expires: 10, etag: "e1", mustRevalidate: true))
        }
        try database.write { try $0.revalidateTile(self.tileKey(1, 1, 1), headers: CacheHeaders(expires: 99)) }
        let tile = try XCTUnwrap(database.tile(tileKey(1, 1, 1)))
        XCTAssertEqual(tile.headers, CacheHeaders(expires: 99, etag: "e1", mustRevalidate: false))
        XCTAssertEqual(try tile.data.decoded(), Data("x".utf8))
    }

    func testAFailedBatchLeavesNothing() throws {
        let database = try OfflineDatabase.open(path: path)
        struct Boom: Error {}
        XCTAssertThrowsError(try database.write { batch in
            try batch.putTile(self.tileKey(1, 0, 0), data: .encoding(Data("a".utf8)), headers: CacheHeaders())
            throw Boom()
        })
        XCTAssertNil(try database.tile(tileKey(1, 0, 0)))
    }
}
