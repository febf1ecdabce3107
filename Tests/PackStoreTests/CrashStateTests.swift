import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// What the file keeps so that a crash loses no work and leaves no half pack: hand drops
/// (undone unless settled), a pending refresh (and the stamp of its rows), and a definition
/// that is owed a download.
final class CrashStateTests: StoreTestCase {
    /// A pack "p" of three tiles and one resource.
    private func makePack(_ database: OfflineDatabase) throws -> (RegionID, [TileID], ResourceID) {
        let pack = try database.createPack(name: "p", definition: sampleDefinition())
        return try database.write { batch in
            let tiles = try (0..<3).map { x in
                let id = try batch.putTile(tileKey(3, x, 0), data: .encoding(noise(100, seed: UInt64(x))), headers: CacheHeaders())
                try batch.link(tile: id, to: pack.id)
                return id
            }
            let style = try batch.putResource(url: "http://h/style.json", kind: .style, data: .encoding(Data("{}".utf8)), headers: CacheHeaders())
            try batch.link(resource: style, to: pack.id)
            try batch.setStatus(PackStatus(state: .complete), of: pack.id)
            return (pack.id, tiles, style)
        }
    }

    private func members(_ database: OfflineDatabase, _ region: RegionID) throws -> Int {
        try database.progress(of: region).counts.tiles + database.progress(of: region).counts.resources
    }

    func testDropsNotSettledAreUndoneByTheNextWriter() throws {
        var database = try OfflineDatabase.open(path: path, mode: .mount)
        let (region, tiles, style) = try makePack(database)
        try database.dropByHand(tile: tiles[0], from: region)
        try database.dropByHand(resource: style, from: region)
        XCTAssertEqual(try members(database, region), 2)
        // A mount that dies never closes: the next writer finds the drops recorded.
        try FileManager.default.copyItem(atPath: path, toPath: temp.path("crashed.db"))
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: temp.path("crashed.db" + suffix))
        }
        try database.close()
        database = try OfflineDatabase.open(path: temp.path("crashed.db"))
        XCTAssertEqual(try members(database, region), 4, "the whole pack again")
        XCTAssertEqual(try database.status(of: region).state, .complete)
        try database.close()
    }

    func testSettledDropsAndACleanCloseKeepThem() throws {
        var database = try OfflineDatabase.open(path: path, mode: .mount)
        let (region, tiles, _) = try makePack(database)
        try database.dropByHand(tile: tiles[0], from: region)
        try database.settleDrops(of: region)
        try database.dropByHand(tile: tiles[1], from: region)
        try database.close()  // a clean end settles the rest
        database = try OfflineDatabase.open(path: path)
        XCTAssertEqual(try members(database, region), 2)
        try database.close()
    }

    func testADropWhoseRowWasEvictedMarksThePackForADownload() throws {
        var database = try OfflineDatabase.open(path: path)
        let (region, tiles, _) = try makePack(database)
        try database.dropByHand(tile: tiles[0], from: region)
        try database.close()
        try raw().write { try $0.execute(sql: "DELETE FROM tiles WHERE id = ?", arguments: [tiles[0].rawValue]) }
        database = try OfflineDatabase.open(path: path)
        XCTAssertEqual(try members(database, region), 3)
        XCTAssertEqual(try database.status(of: region).state, .active, "the next download fetches it again")
        try database.close()
    }

    func testARefreshIsRecordedUntilTheRunThatEndsItAndItsRowsAreStampedFromSince() throws {
        let database = try OfflineDatabase.open(path: path)
        let (region, _, _) = try makePack(database)
        let since = try database.requestRefresh(of: region)
        XCTAssertEqual(try database.pendingRefresh(of: region), since)
        XCTAssertEqual(try database.status(of: region).state, .active, "owed a run")
        try database.write(notBefore: since) { batch in
            _ = try batch.putResource(url: "http://h/new", kind: .glyphs, data: .encoding(Data("g".utf8)), headers: CacheHeaders())
        }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(database.resource(url: "http://h/new")).accessed, since)
        XCTAssertLessThan(try XCTUnwrap(database.resource(url: "http://h/style.json")).accessed, since)
        try database.write { try $0.endRefresh(of: region, since: since - 1) }
        XCTAssertEqual(try database.pendingRefresh(of: region), since, "a later request stays")
        try database.write { try $0.endRefresh(of: region, since: since) }
        XCTAssertNil(try database.pendingRefresh(of: region))
        try database.close()
    }

    /// Defining a pack marks it `active` in the same transaction, whatever changed: a region file
    /// asks for a download (the mount and `packfs download` run one at once), and the state is
    /// written there only (a run finds it recorded).
    func testANewOrChangedDefinitionIsOwedADownload() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: nil)
        XCTAssertEqual(try database.status(of: pack.id), PackStatus(state: .active))
        try database.setStatus(PackStatus(state: .error, error: "e", requiredTiles: 3), of: pack.id)
        _ = try database.definePack(name: "a", definition: sampleDefinition(), metadata: .string("m"))
        XCTAssertEqual(try database.status(of: pack.id), PackStatus(state: .active), "as a run starting records it")
        try database.setStatus(PackStatus(state: .complete), of: pack.id)
        var smaller = sampleDefinition()
        smaller.maxZoom = 10
        _ = try database.definePack(name: "a", definition: smaller, metadata: .string("m"))
        XCTAssertEqual(try database.status(of: pack.id).state, .active)
        try database.close()
    }
}
