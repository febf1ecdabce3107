import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Removing a pack gives its space back to the file system (docs/design.md §1: the database is
/// `auto_vacuum = INCREMENTAL`, and a removal ends with `PRAGMA incremental_vacuum`): the file ends
/// within 10% of the size of a database that never held the pack, in the command's journal mode
/// (DELETE) and in the mount's (WAL, checked after the close that ends the session).
final class RemovalSpaceTests: StoreTestCase {
    /// 8,000 incompressible tiles of 4 KiB: a 32 MiB pack beside a 1 MiB one.
    let bigTiles = 8_000
    let tileBytes = 4_096

    func testRemovingALargePackReturnsItsSpace() throws {
        try assertRemovalReturnsSpace(mode: .command)
    }

    func testRemovingALargePackDuringASessionReturnsItsSpace() throws {
        try assertRemovalReturnsSpace(mode: .mount)
    }

    /// With the ambient limit at 0 nothing of the removed pack may stay; with the default limit
    /// at most the limit stays, as ambient cache.
    func testTheAmbientCacheKeepsNoMoreThanItsLimit() throws {
        let baseline = try makeDatabase(temp.path("baseline.db"), big: false)
        let path = temp.path("kept.db")
        let full = try makeDatabase(path, big: true)
        // File bytes per data byte of the pack (pages, row headers, index): what a cache of
        // `limit` data bytes costs on disk.
        let perByte = Double(full - baseline) / Double(bigTiles * tileBytes)
        let database = try OfflineDatabase.open(path: path, mode: .command)
        _ = try database.setAmbientLimit(8 << 20)
        try database.removePack(try database.pack(named: "big").id)
        try database.close()
        let size = try fileSize(path)
        let allowed = Double(baseline) + Double(8 << 20) * perByte
        XCTAssertLessThanOrEqual(Double(size), allowed * 1.1, "\(size) bytes vs \(baseline) + 8 MiB of ambient cache at \(perByte) bytes a byte")
        XCTAssertGreaterThan(size, baseline + (4 << 20), "the ambient cache kept what its limit allows")
    }

    /// Issue 20, item 4: rows count for what they cost on disk, "no content" rows included. A
    /// removed pack of 40,000 "no content" tiles (404s: no data bytes at all) leaves the file,
    /// its log folded back, no larger than one that never held it plus the ambient limit plus 5%.
    func testNoContentRowsCountAgainstTheAmbientLimit() throws {
        let baseline = try makeDatabase(temp.path("baseline.db"), big: false)
        let path = temp.path("empty-tiles.db")
        _ = try makeDatabase(path, big: false)
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        let limit: Int64 = 1 << 20
        _ = try database.setAmbientLimit(limit)
        let pack = try database.createPack(name: "misses", definition: sampleDefinition())
        try database.write { batch in
            for index in 0..<40_000 {
                let key = tileKey(16, index % 200, index / 200, template: "http://127.0.0.1:8181/tiles/world/{z}/{x}/{y}.pbf")
                let headers = CacheHeaders(etag: "\"5f3c-\(index)\"")
                try batch.link(tile: batch.putTile(key, data: StoredData(bytes: nil, compressed: false), headers: headers), to: pack.id)
            }
        }
        try database.removePack(pack.id)
        XCTAssertTrue(try eventually { try database.removalsSettled() })
        let ambient = try XCTUnwrap(database.ambientUsage())
        XCTAssertLessThanOrEqual(ambient.bytes, limit)
        XCTAssertGreaterThan(ambient.tiles, 1000, "the limit keeps what it allows")
        try database.close()
        let size = try fileSize(path)
        print("40,000 no-content tiles removed: \(size) bytes, \(baseline) never holding them, limit \(limit)")
        XCTAssertLessThanOrEqual(Double(size), Double(baseline + limit) * 1.05)
    }

    private func assertRemovalReturnsSpace(mode: OfflineDatabase.Mode, file: StaticString = #filePath, line: UInt = #line) throws {
        let baseline = try makeDatabase(temp.path("baseline.db"), big: false)
        let path = temp.path("removed.db")
        let full = try makeDatabase(path, big: true)
        XCTAssertGreaterThan(full, baseline + Int64(bigTiles * tileBytes), file: file, line: line)

        let database = try OfflineDatabase.open(path: path, mode: mode)
        _ = try database.setAmbientLimit(0)
        try database.removePack(try database.pack(named: "big").id)
        XCTAssertThrowsError(try database.pack(named: "big"), "gone at once", file: file, line: line)
        // A mount deletes the rows in the background (Removals.swift); a command before it returns.
        XCTAssertTrue(try eventually { try database.removalsSettled() }, "the removal settled", file: file, line: line)
        try database.close()
        let size = try fileSize(path)
        print("removal (\(mode)): \(full) bytes with the pack, \(size) after, \(baseline) never holding it")
        XCTAssertLessThanOrEqual(Double(size), Double(baseline) * 1.1, "\(size) bytes vs \(baseline)", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), "no WAL left after the close", file: file, line: line)
    }

    /// A database holding a small pack (and, with `big`, a large one besides); its size closed.
    private func makeDatabase(_ path: String, big: Bool) throws -> Int64 {
        let database = try OfflineDatabase.open(path: path, mode: .command)
        try fill(database, name: "small", tiles: 256, seed: 1)
        if big { try fill(database, name: "big", tiles: bigTiles, seed: 2) }
        try database.close()
        return try fileSize(path)
    }

    private func fill(_ database: OfflineDatabase, name: String, tiles: Int, seed: UInt64) throws {
        let pack = try database.createPack(name: name, definition: sampleDefinition())
        let template = "http://h/\(name)/{z}/{x}/{y}.pbf"
        try database.write { batch in
            for index in 0..<tiles {
                let key = tileKey(16, index % 256, index / 256, template: template)
                let data = StoredData.encoding(noise(tileBytes, seed: seed &* 1_000_003 &+ UInt64(index)))
                try batch.link(tile: batch.putTile(key, data: data, headers: CacheHeaders()), to: pack.id)
            }
        }
    }

    private func fileSize(_ path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }
}
