import Basics
import Foundation
import PackStore
import SQLiteDB
import XCTest

/// One request's reads in one snapshot (`withOneSnapshot`) and the one read of a tile's bytes
/// (`servedTile`).
final class OneSnapshotTests: StoreTestCase {
    private func glyph(_ database: OfflineDatabase, in pack: RegionID) throws -> ResourceID {
        try database.write { batch -> ResourceID in
            let id = try batch.putResource(url: "http://h/glyphs/0-255.pbf", kind: .glyphs, data: .encoding(Data("g".utf8)),
                                           headers: CacheHeaders())
            try batch.link(resource: id, to: pack)
            return id
        }
    }

    func testARequestReadsOneSnapshotAndTheNextSeesTheCommit() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let url = "http://h/glyphs/0-255.pbf"
        let id = try database.withOneSnapshot { () throws -> ResourceID in
            XCTAssertNil(try database.packResourceID(url: url, in: pack.id))
            let id = try glyph(database, in: pack.id)
            // Committed, but after this request's snapshot: its reads agree with each other.
            XCTAssertNil(try database.packResourceID(url: url, in: pack.id))
            XCTAssertFalse(try database.packHolds(resource: id, in: pack.id))
            // Nested, it is the same snapshot.
            try database.withOneSnapshot { XCTAssertNil(try database.packResourceID(url: url, in: pack.id)) }
            return id
        }
        XCTAssertEqual(try database.withOneSnapshot { try database.packResourceID(url: url, in: pack.id) }, id)
        XCTAssertEqual(try database.packResourceID(url: url, in: pack.id), id, "outside a snapshot: each read its own")
    }

    func testARequestThatThrowsEndsItsTransaction() throws {
        struct Failed: Error {}
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        XCTAssertThrowsError(try database.withOneSnapshot {
            _ = try database.packHolds(tile: TileID(rawValue: 1), in: pack.id)
            throw Failed()
        })
        let id = try glyph(database, in: pack.id)
        // Every pooled connection is out of its transaction: each sees the commit.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            XCTAssertEqual(try? database.withOneSnapshot { try database.packHolds(resource: id, in: pack.id) }, true)
        }
    }

    /// Plain, zlib, gzip kept as is, and zlib over gzip: each served inflated to the raw bytes,
    /// by key and by row alike; asked not to, nothing is decoded.
    func testServedTileUndoesEveryFramingOnce() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        let raw = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7 % 251) })
        let gzip = try Zlib.gzip(raw)
        let forms = [
            StoredData(bytes: raw, compressed: false), StoredData(bytes: try Zlib.compress(raw), compressed: true),
            StoredData(bytes: gzip, compressed: false), StoredData(bytes: try Zlib.compress(gzip), compressed: true),
        ]
        for (y, stored) in forms.enumerated() {
            let id = try database.write { batch -> TileID in
                let id = try batch.putTile(self.tileKey(3, 1, y), data: stored, headers: CacheHeaders())
                try batch.link(tile: id, to: pack.id)
                return id
            }
            let byKey = try XCTUnwrap(try database.servedTile(.key(tileKey(3, 1, y)), in: pack.id))
            XCTAssertEqual(byKey.id, id)
            XCTAssertEqual(byKey.content, raw, "form \(y) by key")
            XCTAssertEqual(try database.servedTile(.row(id), in: pack.id)?.content, raw, "form \(y) by row")
            XCTAssertEqual(try ServedTile.content(of: stored), raw, "form \(y), the rule itself")
            XCTAssertNil(try XCTUnwrap(try database.servedTile(.row(id), in: pack.id) { _ in false }).content)
        }
    }
}
