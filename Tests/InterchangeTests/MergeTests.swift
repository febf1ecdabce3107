import Basics
import Foundation
@testable import Interchange
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// A MapLibre app's offline database merged into a PackFS database: the union, each row once,
/// the newer data kept in the target's rows, packs under unique names, an app's bytes kept.
final class MergeTests: MergeTestCase {
    func testTheUnionArrivesOnceWithUniqueNamesAndTheNewerData() throws {
        let trip = try makeTarget()
        try makeSide()
        let ids = try target.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM tiles WHERE z = 0 UNION ALL SELECT id FROM resources")
        }
        let report = try DatabaseMerge(path: sidePath).write(into: target)

        XCTAssertEqual(try target.packs().map(\.name), ["trip", "trip-2", "city", "region-4"])
        XCTAssertEqual(report.packs.map(\.name), ["trip-2", "city", "region-4"])
        XCTAssertEqual(report.packs.map(\.sideName), ["trip", "city", "region-3"])
        XCTAssertEqual(report.packs.map(\.added), [true, true, true])
        XCTAssertEqual(report.tiles, MergeReport.RowCounts(new: 4, updated: 1, present: 1, skipped: 0, linked: 7, ambient: 1))
        XCTAssertEqual(report.resources, MergeReport.RowCounts(new: 1, updated: 0, present: 1, skipped: 0, linked: 3, ambient: 1))
        let totals = try target.databaseCounts()
        XCTAssertEqual([totals.packs, totals.tiles, totals.resources], [4, 6, 2])
        XCTAssertEqual(try target.ambientUsage()?.tiles, 0, "the side's ambient tile stays behind, as MapLibre's merge leaves it")
        XCTAssertEqual(try target.ambientUsage()?.resources, 0)
        XCTAssertTrue(report.lines.contains { $0.contains("1 left behind (the file's ambient cache)") }, "\(report.lines)")

        XCTAssertEqual(try members("trip").tiles, 2, "the target's own pack is as it was")
        XCTAssertEqual(try members("trip").resources, 1)
        XCTAssertEqual(try members("trip-2").tiles, 3)
        XCTAssertEqual(try members("city").tiles, 3)
        XCTAssertEqual(try members("city").resources, 1)
        XCTAssertEqual(try members("region-4").tiles, 1)
        XCTAssertEqual(try members("region-4").resources, 1)
        XCTAssertEqual(try target.pack(id: trip.id).name, "trip")

        let after = try target.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM tiles WHERE z = 0 AND url_template = ? UNION ALL SELECT id FROM resources WHERE url = ?",
                               arguments: [Self.template, Self.style])
        }
        XCTAssertEqual(after, [ids[0], ids[1]], "the target's row ids stay")
        try assertStoredTile(key(0, 0, 0), data: Data("newer 0/0/0".utf8), modified: 500)
        try assertStoredTile(key(1, 1, 1), data: Data("newer 1/1/1".utf8), modified: 300)
    }

    func testSharedRowsAreStoredOnceWithTheSidesBytes() throws {
        try makeTarget()
        try makeSide()
        try DatabaseMerge(path: sidePath).write(into: target)
        let side = try DatabaseQueue(path: sidePath, configuration: readOnly)
        let sideBytes = try side.read { db in try Data.fetchOne(db, sql: "SELECT data FROM tiles WHERE id = 1") }
        try side.close()
        let shared = try target.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.data, t.compressed, t.etag, COUNT(rt.region_id) AS packs FROM tiles t
                JOIN region_tiles rt ON rt.tile_id = t.id WHERE t.z = 1 AND t.x = 0 AND t.y = 0 GROUP BY t.id
                """)
        }
        XCTAssertEqual(shared.count, 1)
        XCTAssertEqual(shared.first?["data"], sideBytes, "zlib bytes as the app stored them")
        XCTAssertEqual(shared.first?["compressed"], 1)
        XCTAssertEqual(shared.first?["etag"], "e1")
        XCTAssertEqual(shared.first?["packs"], 2)
        let duplicates = try target.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM (SELECT 1 FROM region_tiles GROUP BY region_id, tile_id HAVING COUNT(*) > 1)
                """)
        }
        XCTAssertEqual(duplicates, 0)
    }

    func testAnAppsOpaqueDescriptionIsKeptAndOnlyAJSONNameChanges() throws {
        try makeTarget()
        try makeSide()
        try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(try target.pack(named: "region-4").description, Self.appBytes)
        let renamed = try XCTUnwrap(target.pack(named: "trip-2").description.flatMap(JSONValue.parse))
        XCTAssertEqual(renamed, .object(["name": .string("trip-2"), "metadata": .object(["by": .string("app")])]))
        XCTAssertEqual(try target.pack(named: "city").description, Data(#"{"name":"city"}"#.utf8), "a free name: bytes as stored")
        let definitions = try target.read { db in try String.fetchAll(db, sql: "SELECT definition FROM regions WHERE id > 1 ORDER BY id") }
        XCTAssertEqual(definitions.first, MapLibreSideFile.definition(style: Self.style), "the definition's text as stored")
        XCTAssertEqual(try target.pack(named: "city").definition?.maxZoom, 3)
    }

    func testMergingTheSameFileTwiceAddsNothing() throws {
        try makeTarget()
        try makeSide()
        try DatabaseMerge(path: sidePath).write(into: target)
        let before = try dump()
        let again = try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(try dump(), before)
        XCTAssertEqual(again.packs.map(\.added), [false, false, false])
        XCTAssertEqual(again.packs.map(\.name), ["trip-2", "city", "region-4"])
        XCTAssertEqual(again.tiles, MergeReport.RowCounts(new: 0, updated: 0, present: 6, skipped: 0, linked: 0, ambient: 1))
        XCTAssertEqual(again.resources, MergeReport.RowCounts(new: 0, updated: 0, present: 2, skipped: 0, linked: 0, ambient: 1))
        XCTAssertTrue(again.lines.contains("already present: pack \"trip-2\" (\"trip\" in \(sidePath))"), "\(again.lines)")
    }

    func testTheSideFileIsOnlyReadAndItsCopyGoes() throws {
        try makeSide()
        let before = try fileBytes(sidePath)
        let copies = try sideCopies()
        try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(try fileBytes(sidePath), before)
        XCTAssertEqual(try sideCopies(), copies)
        for companion in ["-journal", "-wal", "-shm"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: sidePath + companion), companion)
        }
    }

    func testAPackFSDatabaseMergesWithItsPackStates() throws {
        let sideDatabase = try OfflineDatabase.open(path: sidePath, mode: .command)
        let pack = try sideDatabase.createPack(
            name: "done", definition: RegionDefinition(
                styleURL: Self.style, area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)), minZoom: 0, maxZoom: 2))
        let status = PackStatus(state: .complete, requiredResources: 1, requiredTiles: 1, requiredIsPrecise: true)
        try sideDatabase.write { batch in
            try batch.link(tile: batch.putTile(key(0, 0, 0), data: .encoding(Data("t".utf8)), headers: CacheHeaders()), to: pack.id)
            try batch.setStatus(status, of: pack.id)
        }
        try sideDatabase.close()
        try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(try target.status(of: try target.pack(named: "done").id), status)
    }

    /// The target's own ambient cache is trimmed to its limit as any write trims it; the side's
    /// ambient rows never arrive, whatever either limit says.
    func testTheTargetsAmbientCacheIsTrimmedAndTheSidesNeverArrives() throws {
        try makeTarget()
        try makeSide()
        try target.write { batch in
            _ = try batch.putTile(key(5, 0, 0), data: .encoding(Data("the target's own ambient tile".utf8)), headers: CacheHeaders())
        }
        try target.setAmbientLimit(1)
        let report = try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(report.evicted, EvictionReport(), "the target's ambient tile went with the limit, before the merge")
        XCTAssertEqual(try target.ambientUsage()?.tiles, 0)
        XCTAssertEqual(try target.databaseCounts().tiles, 6, "every pack tile stays")
        let sideDatabase = try OfflineDatabase.open(path: sidePath, mode: .command)
        try sideDatabase.setAmbientLimit(0)
        try sideDatabase.write { batch in
            _ = try batch.putTile(key(3, 0, 0), data: .encoding(Data("ambient".utf8)), headers: CacheHeaders())
        }
        try sideDatabase.close()
        try target.setAmbientLimit(1 << 20)
        XCTAssertEqual(try DatabaseMerge(path: sidePath).write(into: target).tiles.new, 0)
        XCTAssertEqual(try target.ambientUsage()?.tiles, 0)
    }

    func testTheReportPrintsAsJSON() throws {
        try makeTarget()
        try makeSide()
        let json = try DatabaseMerge(path: sidePath).write(into: target).json
        XCTAssertEqual(json["tiles"]?["new"], .number(4))
        XCTAssertEqual(json["tiles"]?["ambient"], .number(1))
        XCTAssertEqual(json["resources"]?["present"], .number(1))
        XCTAssertEqual(json["packs"]?.array?.compactMap { $0["name"]?.string }, ["trip-2", "city", "region-4"])
        XCTAssertEqual(json["packs"]?.array?.first?["side_name"], .string("trip"))
    }

    /// The merge's private copies in the temporary directory.
    private func sideCopies() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("packfs-side-") }
    }

    private var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    private func assertStoredTile(
        _ key: TileKey, data: Data, modified: Int64, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let row = try target.read { db in
            try Row.fetchOne(db, sql: """
                SELECT data, modified FROM tiles WHERE url_template = ? AND pixel_ratio = ? AND z = ? AND x = ? AND y = ?
                """, arguments: [key.urlTemplate, key.pixelRatio, key.z, key.x, key.y])
        }
        XCTAssertEqual(row?["data"], data, file: file, line: line)
        XCTAssertEqual(row?["modified"], modified, file: file, line: line)
    }
}
