import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// Removing a pack marks it (gone at once for every reader, its name free) and deletes its rows
/// in bounded transactions: in a command before `removePack` returns, on a mount in the
/// background; a removal a crash cut short goes on at the next mount.
final class BackgroundRemovalTests: StoreTestCase {
    private func fill(_ database: OfflineDatabase, _ name: String, tiles: Int) throws -> Pack {
        let pack = try database.createPack(name: name, definition: sampleDefinition())
        let template = "http://h/\(name)/{z}/{x}/{y}.pbf"
        try database.write { batch in
            for index in 0..<tiles {
                let key = tileKey(16, index % 256, index / 256, template: template)
                _ = try batch.link(tile: batch.putTile(key, data: .encoding(noise(32, seed: UInt64(index))), headers: CacheHeaders()), to: pack.id)
            }
        }
        return pack
    }

    private func rows(_ region: RegionID) throws -> Int {
        try raw().read { db in
            try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM region_tiles WHERE region_id = ?) + (SELECT COUNT(*) FROM regions WHERE id = ?)",
                             arguments: [region.rawValue, region.rawValue]) ?? -1
        }
    }

    func testACommandsRemovalDeletesEveryRowInStepsAndFreesTheName() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let big = try fill(database, "big", tiles: Removals.batchRows * 2 + 17)
        let kept = try fill(database, "kept", tiles: 10)
        try database.removePack(big.id)
        XCTAssertEqual(try rows(big.id), 0, "every membership and the region row went")
        XCTAssertEqual(try database.pendingRemovals(), 0)
        XCTAssertEqual(try database.packs().map(\.name), ["kept"])
        XCTAssertEqual(try database.progress(of: kept.id).counts.tiles, 10)
        XCTAssertEqual(try database.databaseCounts().packs, 1)
        let again = try database.createPack(name: "big", definition: sampleDefinition())
        XCTAssertNotEqual(again.id, big.id)
        XCTAssertThrowsError(try database.removePack(big.id), "a removed pack is not found")
    }

    /// What a crash in the middle of removing `region` leaves: its mark, and 1,000 of its
    /// memberships gone.
    private func leaveRemovalCutShort(_ region: RegionID) throws {
        try raw().write { db in
            for statement in Removals.statements { try db.execute(sql: statement) }
            try db.execute(sql: "INSERT INTO packfs_removals (region_id, since) VALUES (?, 1)", arguments: [region.rawValue])
            try db.execute(sql: "DELETE FROM region_tiles WHERE rowid IN (SELECT rowid FROM region_tiles WHERE region_id = ? LIMIT 1000)",
                           arguments: [region.rawValue])
        }
    }

    /// What a crash right after the mark, and one in the middle, leave: the next mount goes on.
    func testARemovalCutShortGoesOnAtTheNextMount() throws {
        let database = try OfflineDatabase.open(path: path)
        let cut = try fill(database, "cut", tiles: 3000)
        let kept = try fill(database, "kept", tiles: 5)
        try database.close()
        try leaveRemovalCutShort(cut.id)
        let reader = try OfflineDatabase.open(path: path, mode: .readOnly)
        XCTAssertEqual(try reader.packs().map(\.name), ["kept"], "a marked pack is gone for readers")
        try reader.close()
        let session = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? session.close() }
        session.resumeRemovals()
        XCTAssertTrue(try eventually { try session.removalsSettled() })
        XCTAssertEqual(try rows(cut.id), 0)
        XCTAssertEqual(try session.progress(of: kept.id).counts.tiles, 5)
        let ambient = try XCTUnwrap(session.ambientUsage())
        XCTAssertLessThanOrEqual(ambient.bytes, try session.ambientLimit())
    }

    /// status.json's `reclaiming`: what a removal still holds (packs, memberships from the kept
    /// figures, unknown for a pack never counted) until the remover has given it all back.
    func testWhatARemovalStillHoldsIsShownUntilItIsGivenBack() throws {
        let database = try OfflineDatabase.open(path: path)
        let cut = try fill(database, "cut", tiles: 3000)
        let uncounted = try fill(database, "uncounted", tiles: 20)
        _ = try fill(database, "kept", tiles: 5)
        XCTAssertNil(try database.reclaiming(), "nothing removed")
        try database.close()
        try leaveRemovalCutShort(cut.id)
        let session = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? session.close() }
        XCTAssertEqual(try session.reclaiming(), Reclaiming(packs: 1, rows: 2000), "what a crash left, before the remover runs")
        try raw().write { db in
            try db.execute(sql: "UPDATE packfs_pack_counts SET counting = 1 WHERE region_id = ?", arguments: [uncounted.id.rawValue])
            try db.execute(sql: "INSERT INTO packfs_removals (region_id, since) VALUES (?, 2)", arguments: [uncounted.id.rawValue])
        }
        XCTAssertEqual(try session.reclaiming(), Reclaiming(packs: 2, rows: nil), "a pack never counted: rows unknown")
        session.resumeRemovals()
        XCTAssertTrue(try eventually { try session.reclaiming() == nil })
        XCTAssertTrue(try session.removalsSettled())
        XCTAssertEqual(try rows(cut.id) + rows(uncounted.id), 0)
    }

    func testAStepFindsItsRowsThroughAnIndex() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        for members in ["region_tiles", "region_resources"] {
            let plan = try database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT rowid FROM \(members) WHERE region_id = ? LIMIT ?", arguments: [1, 5])
                    .map { $0["detail"] as String }
            }
            XCTAssertFalse(plan.contains { $0.hasPrefix("SCAN") }, "\(members): \(plan)")
        }
    }
}
