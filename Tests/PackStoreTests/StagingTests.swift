import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// A refresh stages what it fetched and switches the pack to it in one transaction
/// (Staging.swift, RefreshSwitch.swift): the live rows stay as they were until the switch, which
/// keeps row ids, links new members, records sizes, keeps the counts right, drops the hashes the
/// new bytes make stale (the pack's own and those of packs sharing a changed tile), and leaves no
/// staged row; rows of a refresh that was replaced are never switched in; a removal takes the
/// staged rows with the pack.
final class StagingTests: StoreTestCase {
    let other = "http://h/other/{z}/{x}/{y}.pbf"

    /// Pack p of three tiles and a style, pack q sharing tile 0 and holding a tile of another
    /// template, each with a recorded hash per template; a refresh of p pending.
    private func makePacks(_ database: OfflineDatabase) throws -> (p: RegionID, q: RegionID, tiles: [TileID], since: Int64) {
        let p = try database.createPack(name: "p", definition: sampleDefinition()).id
        let q = try database.createPack(name: "q", definition: sampleDefinition()).id
        let tiles = try database.write { batch -> [TileID] in
            let tiles = try (0..<3).map { x in
                try batch.putTile(tileKey(3, x, 0), data: .encoding(noise(300, seed: UInt64(x))), headers: CacheHeaders(etag: "old"))
            }
            for tile in tiles { try batch.link(tile: tile, to: p) }
            try batch.link(tile: tiles[0], to: q)
            try batch.link(tile: batch.putTile(tileKey(3, 0, 0, template: other), data: .encoding(noise(50, seed: 9)), headers: CacheHeaders()), to: q)
            let style = try batch.putResource(url: "http://h/style.json", kind: .style, data: .encoding(Data("{}".utf8)), headers: CacheHeaders())
            try batch.link(resource: style, to: p)
            for (region, template) in [(p, "http://h/{z}/{x}/{y}.pbf"), (q, "http://h/{z}/{x}/{y}.pbf"), (q, other)] {
                let kept = try database.recordedHashesInside(batch, region)
                try batch.recordHashes(kept + [RecordedHash(urlTemplate: template, pixelRatio: 1, hash: "OLD", tiles: 1, recorded: 1, rule: 2)], of: region)
            }
            return tiles
        }
        return (p, q, tiles, try database.requestRefresh(of: p))
    }

    private func liveData(_ database: OfflineDatabase, _ key: TileKey) throws -> StoredData? {
        try database.tile(key)?.data
    }

    func testTheLiveRowsStayUntilTheSwitchWhichMovesEverythingInOneTransaction() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (p, q, tiles, since) = try makePacks(database)
        let before = try database.progress(of: p).counts
        let changed = StoredData.encoding(Data(repeating: 7, count: 500))  // compressed: its size is kept
        let fresh = StoredData.encoding(noise(200, seed: 78))
        try database.write(notBefore: since) { batch in
            try batch.stageTile(tileKey(3, 0, 0), data: changed, headers: CacheHeaders(etag: "new"), contentSize: 500, for: p, since: since)
            try batch.stageTile(tileKey(3, 1, 0), data: .noContent, headers: CacheHeaders(), contentSize: nil, for: p, since: since)
            try batch.stageTile(tileKey(4, 0, 0), data: fresh, headers: CacheHeaders(), contentSize: 200, for: p, since: since)
            try batch.stageResource(url: "http://h/style.json", kind: .style, data: .encoding(Data("{\"v\":8}".utf8)),
                                    headers: CacheHeaders(), for: p, since: since)
            // A stored row p already holds is no membership to stage; q's other tile is.
            XCTAssertFalse(try batch.stageMembership(of: tileKey(3, 2, 0), for: p, since: since))
            XCTAssertTrue(try batch.stageMembership(of: tileKey(3, 0, 0, template: other), for: p, since: since))
        }
        XCTAssertEqual(try liveData(database, tileKey(3, 0, 0)), .encoding(noise(300, seed: 0)), "live bytes until the switch")
        XCTAssertEqual(try database.tile(tileKey(3, 0, 0))?.headers.etag, "old", "and live headers")
        XCTAssertNil(try database.tile(tileKey(4, 0, 0)), "a new tile is not stored yet")
        XCTAssertEqual(try database.progress(of: p).counts, before, "p's kept figures are the live pack's")
        XCTAssertTrue(try database.hasStaged(p, since: since))
        XCTAssertEqual(try database.stagedTiles([tileKey(3, 0, 0), tileKey(3, 2, 0), tileKey(4, 0, 0)], of: p, since: since),
                       [tileKey(3, 0, 0), tileKey(4, 0, 0)])
        XCTAssertEqual(try database.stagedResource(url: "http://h/style.json", of: p, since: since)?.decoded(), Data("{\"v\":8}".utf8))

        let switched = try database.write(notBefore: since) { try $0.switchStaged(of: p, since: since) }
        XCTAssertEqual(switched.tiles, 4)
        XCTAssertEqual(switched.resources, 1)
        XCTAssertEqual(Set(switched.changedTiles), [
            PackMember(region: p, id: tiles[0]), PackMember(region: q, id: tiles[0]), PackMember(region: p, id: tiles[1]),
        ])
        XCTAssertEqual(try database.tile(tileKey(3, 0, 0))?.id, tiles[0], "row ids are kept")
        XCTAssertEqual(try liveData(database, tileKey(3, 0, 0)), changed)
        XCTAssertEqual(try database.tile(tileKey(3, 0, 0))?.headers.etag, "new")
        XCTAssertEqual(try liveData(database, tileKey(3, 1, 0)), .noContent)
        let added = try XCTUnwrap(database.tile(tileKey(4, 0, 0)))
        XCTAssertGreaterThanOrEqual(added.accessed, since, "a switched row counts as done for the refresh")
        XCTAssertTrue(try database.packHolds(tile: added.id, in: p))
        let copied = try XCTUnwrap(database.packTileID(tileKey(3, 0, 0, template: other), in: p))
        XCTAssertTrue(try database.packHolds(tile: copied, in: q), "a copy joins p; q keeps it")
        XCTAssertEqual(try database.read { try Int.fetchOne($0, sql: "SELECT size FROM packfs_tile_sizes WHERE tile_id = ?",
                                                            arguments: [tiles[0].rawValue]) }, 500, "the served size goes with the bytes")
        XCTAssertFalse(try database.hasStaged(p, since: since))
        XCTAssertEqual(try stagedRows(database), 0)
        try assertKeptFiguresAreTrue(database)
        XCTAssertEqual(try database.recordedHashes(of: p), [], "p's hash described its old tiles")
        XCTAssertEqual(try database.recordedHashes(of: q).map(\.urlTemplate), [other], "q's hash of the shared tile's set is stale")
    }

    func testRowsOfAReplacedRefreshAreNeverSwitchedIn() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (p, _, _, since) = try makePacks(database)
        try database.write { batch in
            try batch.stageTile(tileKey(3, 0, 0), data: .encoding(noise(10, seed: 1)), headers: CacheHeaders(), contentSize: 10,
                                for: p, since: since - 100)
            try batch.stageTile(tileKey(5, 0, 0), data: .encoding(noise(10, seed: 2)), headers: CacheHeaders(), contentSize: 10,
                                for: p, since: since - 100)
        }
        XCTAssertFalse(try database.hasStaged(p, since: since))
        XCTAssertEqual(try database.stagedTiles([tileKey(3, 0, 0)], of: p, since: since), [])
        let switched = try database.write { try $0.switchStaged(of: p, since: since) }
        XCTAssertTrue(switched.isEmpty)
        XCTAssertEqual(try liveData(database, tileKey(3, 0, 0)), .encoding(noise(300, seed: 0)))
        XCTAssertNil(try database.tile(tileKey(5, 0, 0)))
        XCTAssertEqual(try stagedRows(database), 0, "dead rows go with the next switch")
        XCTAssertEqual(try database.recordedHashes(of: p).count, 1, "nothing changed: the hash stays")
    }

    /// A redefinition restarts a pending refresh (its staged answers were for the old plan); a
    /// new `touch` replaces it. Either way its rows are dead.
    func testARedefinitionRestartsThePendingRefresh() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (p, _, _, since) = try makePacks(database)
        _ = try database.definePack(name: "p", definition: sampleDefinition(), metadata: nil)
        XCTAssertEqual(try database.pendingRefresh(of: p), since, "the same definition changes nothing")
        var changed = sampleDefinition()
        changed.maxZoom = 10
        _ = try database.definePack(name: "p", definition: changed, metadata: nil)
        XCTAssertGreaterThan(try XCTUnwrap(database.pendingRefresh(of: p)), since)
    }

    func testARemovalTakesTheStagedRowsInBoundedSteps() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (p, q, _, since) = try makePacks(database)
        try database.write { batch in
            for x in 0..<(Staging.removalRows * 2 + 10) {
                try batch.stageTile(tileKey(12, x, 0), data: .encoding(noise(64, seed: UInt64(x))), headers: CacheHeaders(),
                                    contentSize: 64, for: p, since: since)
            }
        }
        XCTAssertTrue(try database.write { try Staging.removalStep(p, $0.database) })
        XCTAssertEqual(try stagedRows(database), Staging.removalRows + 10)
        try database.removePack(p)
        XCTAssertEqual(try stagedRows(database), 0)
        XCTAssertEqual(try database.packs().map(\.id), [q])
        XCTAssertEqual(try database.read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check") }.count, 0)
    }

    /// Staged bytes are pages of the file: they count as used, and toward `--disk-quota` (a
    /// batch that would stage past it fails, as any write does); the switch frees them.
    func testStagedBytesCountTowardTheDiskAndItsQuota() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let (p, _, _, since) = try makePacks(database)
        let used = try database.diskUsage().usedBytes
        try database.write(notBefore: since) { batch in
            for x in 0..<50 {
                try batch.stageTile(tileKey(9, x, 0), data: .encoding(noise(4096, seed: UInt64(x))), headers: CacheHeaders(),
                                    contentSize: 4096, for: p, since: since)
            }
        }
        let staged = try database.diskUsage().usedBytes
        XCTAssertGreaterThanOrEqual(staged - used, 50 * 4096)
        XCTAssertThrowsError(try database.write(notBefore: since) { batch in
            try batch.stageTile(tileKey(9, 99, 0), data: .encoding(noise(4096, seed: 99)), headers: CacheHeaders(),
                                contentSize: 4096, for: p, since: since)
            try batch.enforce(diskQuota: staged)
        }) { XCTAssertTrue($0 is DiskQuotaExceeded, "\($0)") }
        _ = try database.write { try $0.switchStaged(of: p, since: since) }
        try assertKeptFiguresAreTrue(database)
    }

    /// Every statement the staging and the switch run goes through an index: no pass over
    /// `tiles`, `resources` or the membership tables, and the staging table only through the
    /// switched pack's own range.
    func testEveryStatementUsesIndexes() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        _ = try makePacks(database)
        let statements = [
            Staging.stageTile, Staging.stageTileCopy, Staging.stageResource, Staging.stageResourceCopy, Staging.stagedTile,
            Staging.stagedResource, Staging.stagedResourceExists, Staging.anyStaged,
            RefreshSwitch.changedTiles, RefreshSwitch.changedResources, RefreshSwitch.upsertTiles, RefreshSwitch.recordSizes,
            RefreshSwitch.linkTiles, RefreshSwitch.upsertResources, RefreshSwitch.linkResources, RefreshSwitch.clearTiles,
            RefreshSwitch.clearResources, RefreshSwitch.dropHash, RefreshSwitch.dropHashes,
        ]
        for sql in statements {
            let plan = try database.read { db in
                let parameters = Array(repeating: 1 as DatabaseValueConvertible?, count: max(Self.parameters(sql), 1))
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(parameters))
                    .map { $0["detail"] as String }
            }
            print(sql.split(separator: "\n").first ?? "", "\n  ", plan.joined(separator: "\n   "))
            for step in plan where step.hasPrefix("SCAN") && step != "SCAN CONSTANT ROW" { XCTFail("\(sql)\nscans: \(step)") }
            XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "\(sql): \(plan)")
        }
    }

    /// Distinct parameters of a statement: `?N` numbers, else one per `?`.
    private static func parameters(_ sql: String) -> Int {
        let numbered = sql.matches(of: /\?(\d+)/).compactMap { Int($0.1) }
        return numbered.max() ?? sql.filter { $0 == "?" }.count
    }

    private func stagedRows(_ database: OfflineDatabase) throws -> Int {
        try database.read { db in
            try (Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_staged_tiles") ?? -1)
                + (Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_staged_resources") ?? -1)
        }
    }

    /// The kept figures of every pack and of the database equal a count from scratch.
    private func assertKeptFiguresAreTrue(_ database: OfflineDatabase, line: UInt = #line) throws {
        try database.read { db in
            for id in try Int64.fetchAll(db, sql: "SELECT id FROM regions") {
                let region = RegionID(rawValue: id)
                XCTAssertEqual(try Counting.counts(of: region, db), try OfflineDatabase.counts(of: region, db), "pack \(id)", line: line)
            }
            let totals = try XCTUnwrap(Counting.totals(db))
            XCTAssertEqual(totals.tiles, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles"), line: line)
            XCTAssertEqual(totals.ambient, try AmbientCache.usage(db), line: line)
        }
    }
}

private extension OfflineDatabase {
    /// The hashes recorded so far, read inside a write (`recordHashes` replaces a pack's set).
    func recordedHashesInside(_ batch: StoreBatch, _ region: RegionID) throws -> [RecordedHash] {
        guard try batch.database.tableExists("packfs_pack_hashes") else { return [] }
        return try Row.fetchAll(batch.database, sql: "SELECT url_template, hash FROM packfs_pack_hashes WHERE region_id = ?",
                                arguments: [region.rawValue]).map {
            RecordedHash(urlTemplate: $0["url_template"], pixelRatio: 1, hash: $0["hash"], tiles: 1, recorded: 1, rule: 2)
        }
    }
}
