import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs import` of an app's offline database (written by `sqlite3` with MapLibre's schema,
/// tiles zlib-compressed as MapLibre stores them), then `packfs mount` of the result: the merged
/// packs are listed under their merged names and their tiles read back as the fixture's bytes.
final class MergeMountTests: DaemonMountTestCase {
    static let style = "http://127.0.0.1:1/styles/land.json"
    static let landTemplate = "http://127.0.0.1:1/tiles/land/{z}/{x}/{y}.pbf"
    static let reliefTemplate = "http://127.0.0.1:1/relief/{z}/{x}/{y}.png"

    var side: String { temp.path("cache.db") }

    /// Everything it serves comes from the app's file.
    override class func makeServer() throws -> TestServer? { nil }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let target = try OfflineDatabase.open(path: db, mode: .command)
        let definition = RegionDefinition(
            styleURL: "http://127.0.0.1:1/other.json", area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)),
            minZoom: 0, maxZoom: 1)
        _ = try target.createPack(name: "land", definition: definition)
        try target.close()
        try makeSide()
    }

    /// Pack "land" (a style with one vector source, four tiles stored as zlib) and an app's pack
    /// with opaque description bytes and one raster tile but no style row.
    private func makeSide() throws {
        let land = ProjectPaths.world.appendingPathComponent("tiles/land").path
        let relief = ProjectPaths.world.appendingPathComponent("tiles/geography-class-png/1/1/0.png").path
        let style = #"{"version":8,"sources":{"land":{"type":"vector","tiles":["\#(Self.landTemplate)"],"maxzoom":4}},"layers":[{"id":"land","type":"fill","source":"land","source-layer":"land"}]}"#
        let tiles = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1)].map { z, x, y in
            "('\(Self.landTemplate)', 1, \(z), \(x), \(y), sqlar_compress(readfile('\(land)/\(z)/\(x)/\(y).pbf')), 1, 1)"
        }
        try MapLibreSideFile.create(side, rows: """
            INSERT INTO regions (id, definition, description) VALUES
              (1, '\(MapLibreSideFile.definition(style: Self.style))', CAST('{"name":"land"}' AS BLOB)),
              (2, '\(MapLibreSideFile.definition(style: "asset://gone.json"))', X'00FF01');
            INSERT INTO resources (id, url, kind, data, compressed, accessed) VALUES (1, '\(Self.style)', 1, CAST('\(style)' AS BLOB), 0, 1);
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES \(tiles.joined(separator: ", "));
            INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed)
              VALUES ('\(Self.reliefTemplate)', 1, 1, 1, 0, readfile('\(relief)'), 0, 1);
            INSERT INTO region_tiles SELECT 1, id FROM tiles WHERE url_template = '\(Self.landTemplate)';
            INSERT INTO region_tiles SELECT 2, id FROM tiles WHERE url_template = '\(Self.reliefTemplate)';
            INSERT INTO region_resources VALUES (1, 1);
            """)
    }

    func testMergedPacksMountUnderTheirNamesAndServeTheirTiles() throws {
        let merged = try packfs(["import", db, side, "--json"])
        XCTAssertEqual(merged.status, 0, merged.text)
        let report = try XCTUnwrap(JSONValue.parse(Data(merged.text.utf8)), merged.text)
        XCTAssertEqual(report["packs"]?.array?.compactMap { $0["name"]?.string }, ["land-2", "region-3"])
        XCTAssertEqual(report["tiles"]?["new"], .number(5))
        let again = try packfs(["import", db, side])
        XCTAssertEqual(again.status, 0, again.text)
        XCTAssertTrue(again.text.contains("already present: pack \"land-2\""), again.text)
        XCTAssertTrue(again.text.contains("tiles: 0 new, 0 newer than the stored ones, 5 already present"), again.text)

        try mountPackFS()
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: packs).sorted(),
            ["land", "land-2", "land-2.region", "land.region", "region-3", "region-3.region"])
        for (z, x, y) in [(0, 0, 0), (1, 1, 0), (1, 1, 1)] {
            let fixture = ProjectPaths.world.appendingPathComponent("tiles/land/\(z)/\(x)/\(y).pbf")
            XCTAssertEqual(
                FileManager.default.contents(atPath: "\(packs)/land-2/\(z)/\(x)/\(y).pbf"), try Data(contentsOf: fixture),
                "\(z)/\(x)/\(y): the app's zlib row served as the raw tile")
        }
        let sources = try FileManager.default.contentsOfDirectory(atPath: packs + "/region-3/sources")
        XCTAssertEqual(sources.count, 1, "the styleless app pack shows its one template: \(sources)")
        let png = try Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/geography-class-png/1/1/0.png"))
        XCTAssertEqual(FileManager.default.contents(atPath: "\(packs)/region-3/sources/\(sources[0])/1/1/0.png"), png)
        XCTAssertEqual(FileManager.default.contents(atPath: "\(packs)/region-3/1/1/0.png"), png)
        let busy = try packfs(["import", db, side])
        XCTAssertEqual(busy.status, 1, "a mounted database is not merged into")
        XCTAssertTrue(busy.text.contains("in use by another PackFS process"), busy.text)
    }
}
