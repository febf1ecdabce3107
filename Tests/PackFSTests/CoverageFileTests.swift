import Basics
import Foundation
import PackFS
import PackStore
import StyleModel
import TestSupport
import XCTest

/// `packs/<name>/coverage.geojson`: listed with the pack's files, a live read-only file whose
/// document is the union of the primary source's tiles per zoom, following tiles added and
/// taken away.
final class CoverageFileTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    private let primary = "https://maps.example/data/land/{z}/{x}/{y}.pbf"
    private let other = "https://maps.example/relief/{z}/{x}/{y}.png"
    private let area = RegionDefinition.Area.bounds(Bounds(west: -180, south: -85, east: 180, north: 85))

    private func put(_ batch: StoreBatch, _ template: String, _ z: Int, _ x: Int, _ y: Int) throws -> TileID {
        try batch.putTile(
            TileKey(urlTemplate: template, pixelRatio: 1, z: z, x: x, y: y),
            data: .encoding(Data("tile \(z)/\(x)/\(y)".utf8)), headers: CacheHeaders())
    }

    func testTheFileFollowsThePrimarySourcesTiles() throws {
        // An app's pack without its style: its first template is the primary source.
        let pack = try database.createPack(
            name: "app", definition: RegionDefinition(styleURL: "https://maps.example/styles/gone.json", area: area, minZoom: 0, maxZoom: 4))
        var centre: TileID?
        try database.write { batch in
            for x in 4...6 {
                for y in 4...6 where !(x == 5 && y == 5) { _ = try batch.link(tile: try put(batch, primary, 4, x, y), to: pack.id) }
            }
            for x in 12...13 { _ = try batch.link(tile: try put(batch, primary, 4, x, 1), to: pack.id) }
            _ = try batch.link(tile: try put(batch, other, 2, 0, 0), to: pack.id)
            centre = try put(batch, primary, 4, 5, 5)
        }
        let fs = PackFilesystem(database: database, mountpoint: "/mnt")
        let walker = TreeWalker(fs: fs)
        let directory = try walker.lookup("packs/app").attributes.inode
        XCTAssertTrue(try walker.list(directory).contains { $0.name == "coverage.geojson" && $0.kind == .regularFile })
        let file = try walker.lookup("packs/app/coverage.geojson").attributes
        XCTAssertEqual(file.permissions, 0o444)
        let first = try CoverageDocument(try walker.read("packs/app/coverage.geojson"))
        XCTAssertEqual(first.features.map(\.properties.zoom), [4], "the primary source's zooms only")
        XCTAssertEqual(first.zoom(4)?.properties.tiles, 10)
        XCTAssertEqual(first.zoom(4)?.geometry.coordinates, [
            [CoverageDocument.ring([(4, 4), (4, 7), (7, 7), (7, 4), (4, 4)], z: 4),
             CoverageDocument.ring([(5, 5), (6, 5), (6, 6), (5, 6), (5, 5)], z: 4)],
            [CoverageDocument.ring([(12, 1), (12, 2), (14, 2), (14, 1), (12, 1)], z: 4)],
        ], "a block with a hole, and a block apart")

        // The centre added: no hole; the pair taken away: one polygon.
        try database.write { batch in _ = try batch.link(tile: try XCTUnwrap(centre), to: pack.id) }
        try database.unlink(
            tiles: (12...13).map { TileKey(urlTemplate: primary, pixelRatio: 1, z: 4, x: $0, y: 1) }, resources: [], from: pack.id)
        let data = try walker.read("packs/app/coverage.geojson")
        XCTAssertEqual(try fs.getattr(inode: file.inode, caller: walker.caller).attributes.size, UInt64(data.count), "a live file's size")
        let second = try CoverageDocument(data)
        XCTAssertEqual(second.zoom(4)?.properties.tiles, 9)
        XCTAssertEqual(second.zoom(4)?.geometry.coordinates, [[CoverageDocument.ring([(4, 4), (4, 7), (7, 7), (7, 4), (4, 4)], z: 4)]])
    }
}
