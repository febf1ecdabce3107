import Foundation
@testable import Interchange
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Merges that must not happen: over a tile cap, from a newer, damaged or foreign file. Each
/// leaves the target as it was and the side file byte for byte as it was; older schema versions
/// are migrated on a copy, never in the user's file.
final class MergeRefusalTests: MergeTestCase {
    func testAMergeOverTheTileLimitChangesNothing() throws {
        try makeTarget()
        try makeSide()
        let (bytes, rows) = (try fileBytes(targetPath), try dump())
        // The target holds 2 tiles; the side's packs bring 4 it lacks (its ambient tile stays behind).
        assertRefused(MergeOptions(maxTiles: 5), saying: "merging would add 4 tiles to the 2 the database holds; the tile limit is 5")
        XCTAssertEqual(try fileBytes(targetPath), bytes)
        XCTAssertEqual(try dump(), rows)
        XCTAssertEqual(try DatabaseMerge(path: sidePath, options: MergeOptions(maxTiles: 6)).write(into: target).tiles.new, 4)
    }

    func testAnErrorHalfwayRollsEverythingBack() throws {
        try makeTarget()
        // A region without a definition (the app's table lacks MapLibre's NOT NULL) fails the
        // insert of the third pack, after two were written.
        try MapLibreSideFile.run(sidePath, MapLibreSideFile.schema(version: 6)
            .replacingOccurrences(of: "definition TEXT NOT NULL", with: "definition TEXT") + """
            INSERT INTO regions (id, definition, description) VALUES
              (1, '\(MapLibreSideFile.definition(style: Self.style))', NULL), (2, '\(MapLibreSideFile.definition(style: "b"))', NULL),
              (3, NULL, NULL);
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, accessed) VALUES ('\(Self.template)', 1, 5, 0, 0, X'01', 1);
            INSERT INTO region_tiles VALUES (1, 1);
            PRAGMA user_version = 6;
            """)
        let (bytes, rows) = (try fileBytes(targetPath), try dump())
        XCTAssertThrowsError(try DatabaseMerge(path: sidePath).write(into: target)) { error in
            XCTAssertTrue("\(error)".contains("NOT NULL constraint failed: regions.definition"), "\(error)")
        }
        XCTAssertEqual(try fileBytes(targetPath), bytes)
        XCTAssertEqual(try dump(), rows)
        XCTAssertEqual(try target.packs().map(\.name), ["trip"], "the pack list read afresh")
    }

    func testTheMapboxLimitCountsMapboxTiles() throws {
        try makeTarget()
        try MapLibreSideFile.create(sidePath, rows: """
            INSERT INTO regions (id, definition, description) VALUES (1, '\(MapLibreSideFile.definition(style: "mapbox://styles/a/b"))', NULL);
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, accessed) VALUES
              ('mapbox://tiles/a.b/{z}/{x}/{y}.vector.pbf', 1, 0, 0, 0, X'01', 1),
              ('mapbox://tiles/a.b/{z}/{x}/{y}.vector.pbf', 1, 1, 0, 0, X'02', 1),
              ('http://127.0.0.1:1/other/{z}/{x}/{y}.pbf', 1, 1, 0, 0, X'03', 1);
            INSERT INTO region_tiles SELECT 1, id FROM tiles;
            """)
        let rows = try dump()
        assertRefused(MergeOptions(mapboxTileLimit: 1), saying: "merging would add 2 mapbox:// tiles to the 0 the database holds")
        XCTAssertEqual(try dump(), rows)
        XCTAssertEqual(try DatabaseMerge(path: sidePath, options: MergeOptions(mapboxTileLimit: 2)).write(into: target).tiles.new, 3)
    }

    func testANewerSchemaVersionIsRefusedAndLeftUntouched() throws {
        try makeSide()
        try MapLibreSideFile.run(sidePath, "PRAGMA user_version = 7;")
        try assertSideRefused(saying: "has offline schema version 7")
    }

    func testADamagedFileIsRefusedAndLeftUntouched() throws {
        try MapLibreSideFile.create(sidePath, rows: """
            INSERT INTO regions (id, definition, description) VALUES (1, '\(MapLibreSideFile.definition(style: Self.style))', NULL);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, accessed)
              SELECT '\(Self.template)', 1, 8, i, 0, randomblob(3000), 1 FROM n;
            INSERT INTO region_tiles SELECT 1, id FROM tiles;
            """)
        // Pages in the middle overwritten; the header (and so the file's length) stays right.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: sidePath))
        try handle.seek(toOffset: 20 * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 8 * 4096))
        try handle.close()
        try assertSideRefused(saying: "is damaged")
    }

    func testATruncatedFileIsRefused() throws {
        try makeSide()
        let bytes = try fileBytes(sidePath)
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: sidePath))
        try assertSideRefused(saying: "truncated")
    }

    func testFilesThatAreNoOfflineDatabaseAreRefused() throws {
        try Data("a text file\n".utf8).write(to: URL(fileURLWithPath: sidePath))
        try assertSideRefused(saying: "is not an SQLite database")
        try Data().write(to: URL(fileURLWithPath: sidePath))
        try assertSideRefused(saying: "is not an SQLite database")
        try FileManager.default.removeItem(atPath: sidePath)
        try MapLibreSideFile.run(sidePath, "CREATE TABLE metadata (name TEXT, value TEXT);")
        try assertSideRefused(saying: "not an offline database (no table resources, tiles")
        try FileManager.default.removeItem(atPath: sidePath)
        try MapLibreSideFile.run(sidePath, MapLibreSideFile.schema(version: 6)
            + "ALTER TABLE tiles DROP COLUMN etag; PRAGMA user_version = 6;")
        try assertSideRefused(saying: "table tiles has no column etag")
        XCTAssertThrowsError(try DatabaseMerge(path: temp.path("absent.db")).write(into: target)) { error in
            XCTAssertEqual("\(error)", "\(temp.path("absent.db")): no such file")
        }
    }

    func testAVersion5FileMigratesOnTheCopyOnly() throws {
        try makeTarget()
        try makeSide(version: 5)
        let before = try fileBytes(sidePath)
        let report = try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(report.tiles, MergeReport.RowCounts(new: 4, updated: 1, present: 1, skipped: 0, linked: 7, ambient: 1))
        XCTAssertEqual(try target.packs().map(\.name), ["trip", "trip-2", "city", "region-4"])
        XCTAssertEqual(try fileBytes(sidePath), before, "migrated on a copy")
        let version = try Command.run("/usr/bin/sqlite3", [sidePath, "PRAGMA user_version"])
        XCTAssertEqual(version.text, "5\n")
        let revalidate = try target.read { db in try Int.fetchOne(db, sql: "SELECT SUM(must_revalidate) FROM tiles") }
        XCTAssertEqual(revalidate, 0)
    }

    func testRowsKeyedWithTheWrongTypesStayBehind() throws {
        try MapLibreSideFile.create(sidePath, rows: """
            INSERT INTO regions (id, definition, description) VALUES (1, '\(MapLibreSideFile.definition(style: Self.style))', NULL);
            INSERT INTO tiles (id, url_template, pixel_ratio, z, x, y, data, accessed) VALUES
              (1, '\(Self.template)', 1, 0, 0, 0, X'01', 1), (2, '\(Self.template)', 1, 'one', 0, 0, X'02', 1),
              (3, '\(Self.template)', 1, 1, 0.5, 0, X'03', 1);
            INSERT INTO resources (id, url, kind, data, accessed) VALUES (1, X'0102', 1, X'04', 1);
            INSERT INTO region_tiles SELECT 1, id FROM tiles;
            INSERT INTO region_resources VALUES (1, 1);
            """)
        let report = try DatabaseMerge(path: sidePath).write(into: target)
        XCTAssertEqual(report.tiles, MergeReport.RowCounts(new: 1, updated: 0, present: 0, skipped: 2, linked: 1))
        XCTAssertEqual(report.resources, MergeReport.RowCounts(new: 0, updated: 0, present: 0, skipped: 1, linked: 0))
        XCTAssertEqual(try members("region-1").tiles, 1)
        XCTAssertTrue(report.lines.contains("tiles: 1 new, 0 newer than the stored ones, 0 already present, 2 skipped (keys of the wrong type)"), "\(report.lines)")
    }

    private func assertRefused(_ options: MergeOptions, saying words: String, line: UInt = #line) {
        XCTAssertThrowsError(try DatabaseMerge(path: sidePath, options: options).write(into: target), line: line) { error in
            XCTAssertTrue("\(error)".contains(words), "\(error)", line: line)
            XCTAssertTrue("\(error)".contains("nothing was merged"), "\(error)", line: line)
        }
    }

    /// The merge fails with `words` and the side file's path (never the copy's), and neither
    /// file changes.
    private func assertSideRefused(saying words: String, line: UInt = #line) throws {
        let before = try fileBytes(sidePath)
        let rows = try dump()
        XCTAssertThrowsError(try DatabaseMerge(path: sidePath).write(into: target), line: line) { error in
            XCTAssertTrue("\(error)".contains(words), "\(error)", line: line)
            XCTAssertTrue("\(error)".hasPrefix(sidePath), "\(error)", line: line)
            XCTAssertFalse("\(error)".contains("packfs-side-"), "names the copy: \(error)", line: line)
        }
        XCTAssertEqual(try fileBytes(sidePath), before, line: line)
        for companion in ["-journal", "-wal"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: sidePath + companion), companion, line: line)
        }
        XCTAssertEqual(try dump(), rows, line: line)
    }
}
