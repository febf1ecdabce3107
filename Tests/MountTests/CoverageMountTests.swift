import Foundation
import PackStore
import TestSupport
import XCTest

/// `packs/<name>/coverage.geojson` through a real mount of a database an app filled: "counting"
/// until the background count has measured the pack, then the union of its tiles; `rm` of a
/// tile opens a hole in it.
final class CoverageMountTests: DaemonMountTestCase {
    override class func makeServer() throws -> TestServer? { nil }

    /// A 3x3 block of z5 tiles without its centre, and a lone tile apart, as an app writes them.
    private func makeAppDatabase() throws {
        let definition = MapLibreSideFile.definition(style: "http://127.0.0.1:1/style.json", maxZoom: 5)
        let cells = [(10, 10), (11, 10), (12, 10), (10, 11), (12, 11), (10, 12), (11, 12), (12, 12), (20, 3)]
        let tiles = cells.map { x, y in
            "INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed) VALUES ('http://127.0.0.1:1/{z}/{x}/{y}.pbf', 1, 5, \(x), \(y), CAST('tile \(x)/\(y)' AS BLOB), 0, 1);"
        }
        try MapLibreSideFile.create(db, rows: """
            INSERT INTO regions (id, definition, description) VALUES (1, '\(definition)', CAST('{"name":"app"}' AS BLOB));
            \(tiles.joined(separator: "\n"))
            INSERT INTO region_tiles (region_id, tile_id) SELECT 1, id FROM tiles;
            """)
    }

    private func coverage() -> CoverageDocument? {
        FileManager.default.contents(atPath: "\(packs)/app/coverage.geojson").flatMap { try? CoverageDocument($0) }
    }

    func testTheFileThroughTheMount() throws {
        try makeAppDatabase()
        try mountPackFS()
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: "\(packs)/app").contains("coverage.geojson"))
        XCTAssertTrue(eventually(timeout: 60) { self.coverage()?.counting == nil }, "\(String(describing: coverage()))")
        let block = CoverageDocument.ring([(10, 10), (10, 13), (13, 13), (13, 10), (10, 10)], z: 5)
        let centre = CoverageDocument.ring([(11, 11), (12, 11), (12, 12), (11, 12), (11, 11)], z: 5)
        let lone = CoverageDocument.ring([(20, 3), (20, 4), (21, 4), (21, 3), (20, 3)], z: 5)
        XCTAssertEqual(coverage()?.zoom(5)?.geometry.coordinates, [[block, centre], [lone]])
        XCTAssertEqual(coverage()?.zoom(5)?.properties.tiles, 9)
        // `cat` reads what stat says.
        let cat = try Command.run("/bin/cat", ["\(packs)/app/coverage.geojson"])
        XCTAssertEqual(cat.status, 0)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: "\(packs)/app/coverage.geojson")[.size] as? Int)
        XCTAssertEqual(cat.text.utf8.count, size)

        let rm = try Command.run("/bin/rm", ["\(packs)/app/5/20/3.pbf"])
        XCTAssertEqual(rm.status, 0, rm.text)
        XCTAssertTrue(eventually(timeout: 30) { self.coverage()?.zoom(5)?.properties.tiles == 8 }, "\(String(describing: coverage()))")
        XCTAssertEqual(coverage()?.zoom(5)?.geometry.coordinates, [[block, centre]])
        unmountPackFS()
    }
}
