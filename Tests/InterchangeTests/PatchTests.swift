import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

@testable import Interchange

/// Patches in martin's format applied to imported packs: martin's fixtures give martin's hash
/// after the patch, and the pack's export holds the new file's tiles byte for byte; every refusal
/// leaves the database file byte for byte.
final class PatchTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .command }
    var old: String!
    var new: String!
    let before = MartinFixtures.hashes["world_cities"] ?? ""
    let after = MartinFixtures.hashes["world_cities_modified"] ?? ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        (old, new) = try MartinFixtures.patchSides(in: temp)
    }

    private func importOld(as name: String = "cities") throws -> Pack {
        try MBTilesImport(path: old, name: name, acceptHashMismatch: true).write(into: database).pack
    }

    private func patch(_ name: String = "diff", extraSQL: String = "", before: String? = nil, after: String? = nil) throws -> String {
        let path = temp.path("\(name).mbtiles")
        try PatchFiles.make(old: old, new: new, to: path, before: before ?? self.before, after: after ?? self.after, extraSQL: extraSQL)
        return path
    }

    func testMartinsFixturePatchGivesMartinsHashAndTheNewFilesTiles() throws {
        let pack = try importOld()
        let summary = try PackPatch(database: database, pack: pack).apply(try PatchFile(path: try patch()))
        XCTAssertEqual(summary.after, after)
        XCTAssertEqual(try PackHash.compute(pack, in: database).map(\.hash), [after])
        XCTAssertEqual(try database.recordedHashes(of: pack.id).map(\.hash), [after])
        let changes = summary.changes
        XCTAssertGreaterThan(changes.changed.count + changes.added.count + changes.deleted.count, 0)
        // The export holds exactly the modified file's tiles.
        let out = temp.path("out.mbtiles")
        _ = try MBTilesExport(database: database, pack: pack).write(to: out)
        XCTAssertEqual(try MBTilesRows.tiles(of: out), try MBTilesRows.tiles(of: new))
    }

    func testEveryRefusalLeavesTheDatabaseFileByteForByte() throws {
        let pack = try importOld()
        let cases: [(String, String, (Error) -> Bool)] = [
            ("wrong base", try patch("base", before: String(repeating: "A", count: 32)), {
                if case PatchError.wrongBase(_, _, let found) = $0 { return found.map(\.hash) == [self.before] }
                return false
            }),
            ("wrong result", try patch("result", after: String(repeating: "B", count: 32)), {
                if case PatchError.wrongResult(_, _, let computed) = $0 { return computed == self.after }
                return false
            }),
            ("binary diff", try patch("bsdiff", extraSQL: "CREATE TABLE bsdiffraw (zoom_level, tile_column, tile_row, patch_data, tile_xxh3_64_hash);"), {
                if case PatchError.binaryDiff(_, let tables) = $0 { return tables == ["bsdiffraw"] }
                return false
            }),
            ("outside the grid", try patch("grid", extraSQL: "INSERT INTO tiles VALUES (3, 9, 0, x'00');"), {
                if case PatchError.damaged(_, let detail) = $0 { return detail.contains("3/9/0") }
                return false
            }),
            ("not a patch", old, {
                if case PatchError.notAPatch = $0 { return true }
                return false
            }),
        ]
        let bytes = try Data(contentsOf: URL(fileURLWithPath: database.path))
        for (name, path, matches) in cases {
            XCTAssertThrowsError(try PackPatch(database: database, pack: pack).apply(try PatchFile(path: path)), name) { error in
                XCTAssertTrue(matches(error), "\(name): \(error)")
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database.path)), bytes, name)
        }
        XCTAssertEqual(try PackHash.compute(pack, in: database).map(\.hash), [before])
    }

    func testAPatchAppliedTwiceIsRefusedTheSecondTime() throws {
        let pack = try importOld()
        let file = try patch()
        _ = try PackPatch(database: database, pack: pack).apply(try PatchFile(path: file))
        XCTAssertThrowsError(try PackPatch(database: database, pack: pack).apply(try PatchFile(path: file))) { error in
            XCTAssertEqual(error as? PatchError, .wrongBase(pack: "cities", expected: before, found: [.init(source: "cities", hash: after)]))
        }
    }

    func testAPackSharingPatchedRowsSeesTheChangeAndLosesItsRecordedHash() throws {
        let pack = try importOld()
        // A second pack holding the same rows (as two downloads of one server's tiles do).
        let definition = try XCTUnwrap(pack.definition)
        let rows = try database.read {
            try Int64.fetchAll(
                $0, sql: "SELECT tile_id FROM region_tiles WHERE region_id = ?", arguments: [pack.id.rawValue])
        }.map(TileID.init(rawValue:))
        let twin = try database.createPack(name: "twin", definition: definition, metadata: nil) { batch, region in
            for row in rows { try batch.link(tile: row, to: region) }
            return definition
        }
        try database.recordHashes([RecordedHash(urlTemplate: "x", pixelRatio: 1, hash: before, tiles: 8, recorded: 0, rule: 2)], of: twin.id)
        let summary = try PackPatch(database: database, pack: pack).apply(try PatchFile(path: try patch()))
        XCTAssertEqual(summary.changes.otherPacks, [twin.id])
        XCTAssertFalse(summary.changes.sharedRows.isEmpty)
        XCTAssertEqual(try database.recordedHashes(of: twin.id), [])
    }
}
