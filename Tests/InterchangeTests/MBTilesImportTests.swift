import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

@testable import Interchange

/// MBTiles import on real files: the pack's shape, the fixtures (a plain table and the
/// map/images views), the round trip through export, and refusals that write nothing.
final class MBTilesImportTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .command }
    static let fixtures = ProjectPaths.fixtures.appendingPathComponent("mbtiles")

    func testAFileBecomesAPackWithItsMetadata() throws {
        let file = try makeMBTiles("trails.mbtiles", metadata: [
            "name": "Trails", "format": "pbf", "bounds": "24.9, 60.1,25,60.2", "center": "24.95,60.15,12",
            "minzoom": "3", "maxzoom": "5", "attribution": "(c) trails", "scheme": "xyz",
            "json": #"{"vector_layers": [{"id": "paths", "fields": {}}], "tilestats": {}}"#,
        ], tiles: [(3, 4, 5, Data("a".utf8)), (5, 17, 22, Data([0x1F, 0x8B, 9]))])
        let summary = try MBTilesImport(path: file).write(into: database)
        XCTAssertEqual(summary.pack.name, "trails")
        XCTAssertEqual(summary.tiles, 2)
        XCTAssertEqual(summary.zooms, 3...5)
        XCTAssertEqual(summary.pack.definition?.area, .bounds(Bounds(west: 24.9, south: 60.1, east: 25, north: 60.2)))
        // TMS rows flipped to XYZ (a `scheme` row changes nothing); bytes exactly as the file holds them.
        let template = "mbtiles://trails/{z}/{x}/{y}"
        XCTAssertEqual(try database.tile(TileKey(urlTemplate: template, pixelRatio: 1, z: 3, x: 4, y: 2))?.data.decoded(), Data("a".utf8))
        XCTAssertEqual(
            try database.tile(TileKey(urlTemplate: template, pixelRatio: 1, z: 5, x: 17, y: 9))?.data.decoded(),
            Data([0x1F, 0x8B, 9]))
        let stored = try XCTUnwrap(database.resource(url: "mbtiles://trails/tiles.json")?.data.decoded())
        let tileJSON = try XCTUnwrap(JSONValue.parse(stored))
        XCTAssertEqual(tileJSON["name"], .string("Trails"))
        XCTAssertEqual(tileJSON["attribution"], .string("(c) trails"))
        XCTAssertEqual(tileJSON["bounds"], .array([24.9, 60.1, 25, 60.2].map(JSONValue.number)))
        XCTAssertEqual(tileJSON["center"], .array([24.95, 60.15, 12].map(JSONValue.number)))
        XCTAssertEqual(tileJSON["minzoom"], .number(3))
        XCTAssertEqual(tileJSON["vector_layers"], .array([.object(["id": .string("paths"), "fields": .object([:])])]))
        XCTAssertNil(tileJSON["tilestats"])
    }

    func testMetadataTheModelWouldRefuseIsLeftOut() {
        let json = MBTilesImport.tileJSON(from: [
            "bounds": "west,south,east,north", "center": "1,,2", "minzoom": "1,2", "maxzoom": "nan", "json": "{",
        ])
        // Only the rows, kept as they are for the export (MBTilesMetadata.keptKey).
        XCTAssertEqual(json.object?.keys.sorted(), [MBTilesMetadata.keptKey])
    }

    /// The fixture, imported and exported again, is the same file tile for tile, byte for byte:
    /// its tiles are gzipped, so they are stored and written as they are.
    func testTheFixtureRoundTripsByteForByte() throws {
        let fixture = Self.fixtures.appendingPathComponent("helsinki.mbtiles").path
        let summary = try MBTilesImport(path: fixture, name: "round trip").write(into: database)
        XCTAssertEqual(summary.tiles, 19)
        let out = temp.path("again.mbtiles")
        let written = try MBTilesExport(database: database, pack: summary.pack).write(to: out).files
        XCTAssertEqual(written.map(\.path), [out])
        XCTAssertEqual(try MBTilesRows.tiles(of: out), try MBTilesRows.tiles(of: fixture))
        let before = try MBTilesRows.metadata(of: fixture), after = try MBTilesRows.metadata(of: out)
        for key in ["name", "format", "minzoom", "maxzoom", "description", "version"] {
            XCTAssertEqual(after[key], before[key], key)
        }
        let layers = { (text: String?) in text.flatMap { JSONValue.parse(Data($0.utf8))?["vector_layers"] } }
        XCTAssertNotNil(layers(before["json"]))
        XCTAssertEqual(layers(after["json"]), layers(before["json"]))
    }

    /// geography-class-png.mbtiles keeps its tiles in `map` and `images` behind a `tiles` view.
    /// The fixture's gzipped vector tiles are kept as they are and served inflated: each gets
    /// its served size recorded, so that a listing with attributes (`du`) inflates none of them.
    func testGzipTilesGetTheirServedSizesRecorded() throws {
        let fixture = Self.fixtures.appendingPathComponent("helsinki.mbtiles").path
        let summary = try MBTilesImport(path: fixture).write(into: database)
        let rows = try DatabaseQueue(path: temp.path("packs.db")).read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.data, s.size FROM tiles t LEFT JOIN packfs_tile_sizes s ON s.tile_id = t.id WHERE t.data IS NOT NULL
                """)
        }
        XCTAssertEqual(rows.count, summary.tiles)
        for row in rows {
            let data: Data = row["data"]
            XCTAssertTrue(data.starts(with: [0x1F, 0x8B]), "the fixture's tiles are gzip, kept as they are")
            XCTAssertEqual(row["size"] as Int?, try Zlib.decompress(data).count, "the served (inflated) size")
        }
        // A byte that is not gzip (the "gzip" of testAFileBecomesAPackWithItsMetadata) records none.
        XCTAssertNil(StoredData.servedSize(of: Data([0x1F, 0x8B, 9])))
        XCTAssertEqual(StoredData.servedSize(of: Data("raw".utf8)), 3)
    }

    func testATilesViewIsReadToo() throws {
        let fixture = Self.fixtures.appendingPathComponent("geography-class-png.mbtiles").path
        let summary = try MBTilesImport(path: fixture).write(into: database)
        XCTAssertEqual(summary.pack.name, "geography-class-png")
        XCTAssertEqual(summary.tiles, 5)
        XCTAssertEqual(summary.zooms, 0...1)
    }

    func testWhatIsNotMBTilesIsRefusedAndNothingIsWritten() throws {
        let text = temp.path("text.mbtiles")
        try Data("not a database at all, but long enough to look like one".utf8).write(to: URL(fileURLWithPath: text))
        let empty = temp.path("empty.mbtiles")
        try DatabaseQueue(path: empty).write { try $0.execute(sql: "CREATE TABLE other (a)") }
        let offline = temp.path("offline.mbtiles")
        try OfflineDatabase.open(path: offline).close()
        let noMetadata = temp.path("tiles-only.mbtiles")
        try DatabaseQueue(path: noMetadata).write {
            try $0.execute(sql: "CREATE TABLE tiles (zoom_level, tile_column, tile_row, tile_data)")
        }
        let cases = [
            (text, "not an SQLite file"), (empty, "is not an MBTiles file: it has no `metadata` table"),
            (offline, "is not an MBTiles file: it has no `metadata` table"),
            (noMetadata, "is not an MBTiles file: it has no `metadata` table"),
        ]
        for (file, words) in cases {
            XCTAssertThrowsError(try MBTilesImport(path: file).write(into: database)) { error in
                XCTAssertTrue("\(error)".contains(words), "\(file): \(error)")
            }
        }
        let wrongColumns = try makeMBTiles("columns.mbtiles", metadata: ["name": "x"], tiles: [])
        try DatabaseQueue(path: wrongColumns).write {
            try $0.execute(sql: "DROP TABLE tiles; CREATE TABLE tiles (z, x, y, tile_data)")
        }
        XCTAssertThrowsError(try MBTilesImport(path: wrongColumns).write(into: database)) { error in
            XCTAssertTrue("\(error)".contains("its `tiles` table has no zoom_level, tile_column, tile_row"), "\(error)")
        }
        try assertNothingStored()
    }

    /// A bad row anywhere in the file stops the import with an error naming it; the tiles stored
    /// before it are rolled back with the pack.
    func testABadTileLeavesTheDatabaseAsItWas() throws {
        let good = (3, 4, 5, Data("a".utf8))
        let bad: [(String, String)] = [
            ("'z'", "does not have integer coordinates"), ("1.5", "does not have integer coordinates"),
            ("25", "lies outside the tile grid"), ("-1", "lies outside the tile grid"),
        ]
        for (index, (zoom, words)) in bad.enumerated() {
            let file = try makeMBTiles("bad\(index).mbtiles", metadata: ["name": "bad"], tiles: [good])
            try DatabaseQueue(path: file).write { db in
                try db.execute(sql: "INSERT INTO tiles VALUES (\(zoom), 0, 0, x'00')")
            }
            XCTAssertThrowsError(try MBTilesImport(path: file).write(into: database)) { error in
                XCTAssertTrue("\(error)".contains(words), "\(zoom): \(error)")
            }
        }
        let outside = try makeMBTiles("row.mbtiles", metadata: [:], tiles: [good, (2, 1, 4, Data("b".utf8))])
        XCTAssertThrowsError(try MBTilesImport(path: outside).write(into: database)) { error in
            XCTAssertEqual("\(error)", "row.mbtiles: tile 2/1/4 (TMS row) lies outside the tile grid")
        }
        let column = try makeMBTiles("column.mbtiles", metadata: [:], tiles: [good, (2, 4, 1, Data("b".utf8))])
        XCTAssertThrowsError(try MBTilesImport(path: column).write(into: database)) { error in
            XCTAssertTrue("\(error)".contains("outside zoom 2's grid"), "\(error)")
        }
        let missing = try makeMBTiles("null.mbtiles", metadata: [:], tiles: [good])
        try DatabaseQueue(path: missing).write { try $0.execute(sql: "INSERT INTO tiles VALUES (1, 0, 0, NULL)") }
        XCTAssertThrowsError(try MBTilesImport(path: missing).write(into: database)) { error in
            XCTAssertTrue("\(error)".hasSuffix("tile 1/0/0 (TMS row) has no data"), "\(error)")
        }
        XCTAssertThrowsError(try MBTilesImport(path: makeMBTiles("none.mbtiles", metadata: [:], tiles: [])).write(into: database))
        try assertNothingStored()
    }

    /// The import reads the file without writing to it, even when the file may not be written.
    func testTheFileIsOnlyRead() throws {
        let file = try makeMBTiles("kept.mbtiles", metadata: ["name": "kept"], tiles: [(0, 0, 0, Data("a".utf8))])
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        try MBTilesImport(path: file).write(into: database)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.hasPrefix("kept") }, ["kept.mbtiles"])
        XCTAssertThrowsError(try MBTilesImport(path: file).write(into: database)) { error in
            XCTAssertTrue("\(error)".contains("kept"), "\(error)")
        }
        XCTAssertEqual(try MBTilesImport(path: file, name: "kept again").write(into: database).tiles, 1)
    }

    func testRowsOutsideTheGridNeverTrap() {
        XCTAssertEqual(MBTilesImport.xyzRow(z: 0, tmsRow: 0), 0)
        XCTAssertEqual(MBTilesImport.xyzRow(z: 11, tmsRow: 1256), 791)
        for (z, row) in [(-1, 0), (25, 0), (Int.max, 0), (Int.min, 0), (3, 8), (3, -1), (3, Int.min), (3, Int.max)] {
            XCTAssertNil(MBTilesImport.xyzRow(z: z, tmsRow: row), "\(z)/\(row)")
        }
    }

    // MARK: - Files

    private func assertNothingStored(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try database.packs().count, 0, file: file, line: line)
        let counts = try database.read { db in
            try ["tiles", "resources", "region_tiles", "region_resources"].map {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1
            }
        }
        XCTAssertEqual(counts, [0, 0, 0, 0], file: file, line: line)
    }
}
