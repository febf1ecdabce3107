import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// A mount's record of what its refreshes' switches replaced (`SwitchedRows`): each changed row's
/// version and, until `retention` has passed, the bytes of the version before, which the mount
/// serves under that version's inode.
final class SwitchedRowsTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    private let template = "http://h/t/{z}/{x}/{y}.pbf"

    func testEachSwitchRecordsTheChangedRowsVersionAndTheBytesItReplaced() throws {
        let (region, ids) = try makePack()
        try database.beginSwitchedRows()
        XCTAssertFalse(database.hasSwitchedRows)
        XCTAssertNil(try database.switchedRow(.tile, ids[0].rawValue))

        // Tiles 0 and 1 change, tile 2 comes back with the bytes it had.
        let first = try refresh(region, [0: bytes(0, 1), 1: bytes(1, 1), 2: bytes(2, 0)])
        XCTAssertTrue(database.hasSwitchedRows)
        XCTAssertEqual(first.tileVersions, [ids[0]: 1, ids[1]: 1])
        XCTAssertEqual(first.tileKeys[ids[1]], key(1))
        XCTAssertEqual(try database.switchedRow(.tile, ids[0].rawValue)?.version, 1)
        XCTAssertEqual(try database.switchedRow(.tile, ids[0].rawValue)?.previous?.decoded(), bytes(0, 0))
        XCTAssertNil(try database.switchedRow(.tile, ids[2].rawValue), "unchanged: no new version")
        XCTAssertEqual(try database.servedTile(.row(ids[0]), in: region)?.content, bytes(0, 1), "the live row is the new one")

        let second = try refresh(region, [0: bytes(0, 2)])
        XCTAssertEqual(second.tileVersions, [ids[0]: 2])
        XCTAssertEqual(try database.switchedRow(.tile, ids[0].rawValue)?.previous?.decoded(), bytes(0, 1), "the version before")

        try database.releaseSwitchedRows(now: Int64(Date().timeIntervalSince1970) + OfflineDatabase.switchedRowRetention - 5)
        XCTAssertNotNil(try database.switchedRow(.tile, ids[0].rawValue)?.previous, "kept while the retention runs")
        try database.releaseSwitchedRows(now: Int64(Date().timeIntervalSince1970) + OfflineDatabase.switchedRowRetention + 1)
        let released = try XCTUnwrap(try database.switchedRow(.tile, ids[0].rawValue))
        XCTAssertEqual(released.version, 2, "the version stays: it names the inode")
        XCTAssertNil(released.previous, "the old bytes went")

        try database.endSwitchedRows()
        XCTAssertFalse(database.hasSwitchedRows)
        XCTAssertFalse(try database.read { try $0.tableExists("packfs_switched_rows") })
    }

    /// A switch that replaced more than the limit keeps none of it: the rows get their new
    /// versions (new inodes) and the old inodes are stale at once.
    func testASwitchOverTheLimitRecordsVersionsWithoutBytes() throws {
        let (region, ids) = try makePack()
        try database.beginSwitchedRows()
        let since = try database.requestRefresh(of: region)
        try database.write(notBefore: since) { batch in
            try batch.stageTile(key(0), data: .encoding(bytes(0, 1)), headers: CacheHeaders(), contentSize: 16,
                                for: region, since: since)
            var switched = SwitchedContent(region: region)
            switched.changedTiles = [PackMember(region: region, id: ids[0])]
            try batch.recordSwitchedRows(.tile, region, since, &switched, keepingAtMost: 3)
            XCTAssertEqual(switched.tileVersions, [ids[0]: 1])
        }
        let row = try XCTUnwrap(try database.switchedRow(.tile, ids[0].rawValue))
        XCTAssertEqual(row.version, 1)
        XCTAssertNil(row.previous, "over the limit: nothing kept")
    }

    /// Outside a mount (`packfs` commands, an unmounted database) a switch records nothing, not
    /// even into a table the file brings (a mount that could not empty it, another program).
    func testASwitchWithoutAMountRecordsNothing() throws {
        let (region, ids) = try makePack()
        let switched = try refresh(region, [0: bytes(0, 1)])
        XCTAssertEqual(switched.changedTiles.map(\.id), [ids[0]])
        XCTAssertEqual(switched.tileVersions, [:])
        XCTAssertFalse(database.hasSwitchedRows)
        XCTAssertFalse(try database.read { try $0.tableExists("packfs_switched_rows") })

        try database.write { batch in try batch.db.execute(sql: SwitchedRows.create) }
        let again = try refresh(region, [0: bytes(0, 2)])
        XCTAssertEqual(again.tileVersions, [:], "a table this session did not make is not used")
        XCTAssertFalse(database.hasSwitchedRows)
        XCTAssertEqual(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM packfs_switched_rows") }, 0)
    }

    /// A pack of three tiles, each `bytes(x, 0)`.
    private func makePack() throws -> (RegionID, [TileID]) {
        let definition = RegionDefinition(styleURL: "http://h/style.json", area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)),
                                          minZoom: 0, maxZoom: 16)
        let region = try database.createPack(name: "p", definition: definition).id
        let ids = try database.write { batch in
            try (0..<3).map { x in
                let id = try batch.putTile(key(x), data: .encoding(bytes(x, 0)), headers: CacheHeaders())
                try batch.link(tile: id, to: region)
                return id
            }
        }
        return (region, ids)
    }

    /// A refresh that staged `changes` (x -> bytes), switched.
    private func refresh(_ region: RegionID, _ changes: [Int: Data]) throws -> SwitchedContent {
        let since = try database.requestRefresh(of: region)
        return try database.write(notBefore: since) { batch in
            for (x, data) in changes {
                try batch.stageTile(key(x), data: .encoding(data), headers: CacheHeaders(), contentSize: data.count,
                                    for: region, since: since)
            }
            return try batch.switchStaged(of: region, since: since)
        }
    }

    private func key(_ x: Int) -> TileKey { TileKey(urlTemplate: template, pixelRatio: 1, z: 16, x: x, y: 0) }

    private func bytes(_ x: Int, _ version: Int) -> Data { Data("tile \(x) version \(version)".utf8) }
}
