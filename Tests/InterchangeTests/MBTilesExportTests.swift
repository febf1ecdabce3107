import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

@testable import Interchange

/// MBTiles export on real SQLite files, read back with plain SQL: which sources go to which
/// file, TMS rows, gzipped vector tiles, the metadata rows, and no file at all when it fails.
final class MBTilesExportTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .command }

    static let style = """
        {"version": 8, "sources": {
          "roads": {"type": "vector", "tiles": ["http://example.test/roads/{z}/{x}/{y}.pbf"], "maxzoom": 14,
                    "attribution": "(c) roads"},
          "trails": {"type": "geojson", "data": "http://example.test/trails.geojson"},
          "photo/2": {"type": "raster", "tiles": ["http://example.test/photo/{z}/{x}/{y}.png"], "tileSize": 256}},
         "layers": [
          {"id": "a", "type": "line", "source": "roads", "source-layer": "streets"},
          {"id": "b", "type": "fill", "source": "roads", "source-layer": "parks"},
          {"id": "c", "type": "line", "source": "roads", "source-layer": "streets"},
          {"id": "d", "type": "raster", "source": "photo/2"}]}
        """
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

    /// Pack "two" of Helsinki's bounds: road tiles at 3/4/2 (raw), 4/9/4 (stored gzipped) and one
    /// at 3/9/0, outside zoom 3's grid; a photo tile at 2/2/1.
    @discardableResult
    func makePack() throws -> Pack {
        let definition = RegionDefinition(
            styleURL: "http://example.test/style.json",
            area: .bounds(Bounds(west: 24.9, south: 60.1, east: 25.0, north: 60.2)), minZoom: 0, maxZoom: 14)
        let pack = try database.createPack(name: "two", definition: definition)
        try database.write { batch in
            let style = try batch.putResource(
                url: definition.styleURL, kind: .style, data: .encoding(Data(Self.style.utf8)), headers: CacheHeaders())
            try batch.link(resource: style, to: pack.id)
            let tiles: [(String, Int, Int, Int, Data)] = [
                ("roads/{z}/{x}/{y}.pbf", 3, 4, 2, Data("raw tile".utf8)),
                ("roads/{z}/{x}/{y}.pbf", 4, 9, 4, try Zlib.gzip(Data("gzipped tile".utf8))),
                ("roads/{z}/{x}/{y}.pbf", 3, 9, 0, Data("off the grid".utf8)),
                ("photo/{z}/{x}/{y}.png", 2, 2, 1, Self.png),
            ]
            for (path, z, x, y, data) in tiles {
                let key = TileKey(urlTemplate: "http://example.test/" + path, pixelRatio: 1, z: z, x: x, y: y)
                try batch.link(tile: batch.putTile(key, data: .encoding(data), headers: CacheHeaders()), to: pack.id)
            }
        }
        return pack
    }

    func testEachTiledSourceGoesToItsOwnFile() throws {
        let written = try MBTilesExport(database: database, pack: makePack()).write(to: temp.path("out.MBTiles")).files
        XCTAssertEqual(written.map(\.source), ["roads", "photo/2"])
        XCTAssertEqual(written.map(\.path), [temp.path("out.roads.mbtiles"), temp.path("out.photo%2F2.mbtiles")])
        XCTAssertEqual(written.map(\.tiles), [2, 1])
        XCTAssertEqual(written.map(\.skipped), [1, 0])
        XCTAssertEqual(written.map(\.zooms), [3...4, 2...2])

        let roads = try rows(of: written[0].path)
        // TMS rows; the raw tile gzipped, the gzipped one as stored.
        XCTAssertEqual(roads.map(\.coordinate), ["3/4/5", "4/9/11"])
        XCTAssertEqual(try Zlib.decompress(roads[0].data), Data("raw tile".utf8))
        XCTAssertEqual(roads[1].data, try Zlib.gzip(Data("gzipped tile".utf8)))
        XCTAssertEqual(try rows(of: written[1].path).map(\.data), [Self.png])
        XCTAssertEqual(try rows(of: written[1].path).map(\.coordinate), ["2/2/2"])
    }

    func testMetadataRowsFollowTheSpec() throws {
        let written = try MBTilesExport(database: database, pack: makePack()).write(to: temp.path("out.mbtiles")).files
        let roads = try MBTilesRows.metadata(of: written[0].path)
        let expected = [
            "name": "two roads", "format": "pbf", "bounds": "24.9,60.1,25,60.2", "minzoom": "3", "maxzoom": "4",
            "type": "baselayer", "attribution": "(c) roads",
            "json": #"{"vector_layers":[{"fields":{},"id":"streets"},{"fields":{},"id":"parks"}]}"#,
        ]
        XCTAssertEqual(roads.filter { expected[$0.key] != nil }, expected)
        let centre = try XCTUnwrap(roads["center"]).split(separator: ",").compactMap { Double($0) }
        XCTAssertEqual(centre.count, 3)
        XCTAssertEqual(centre[0], 24.95, accuracy: 1e-9)
        XCTAssertEqual(centre[1], 60.15, accuracy: 1e-9)
        XCTAssertEqual(centre[2], 4)  // a 0.1-degree extent is a tile at zoom 11; the file's deepest is 4
        let photo = try MBTilesRows.metadata(of: written[1].path)
        XCTAssertEqual(photo["format"], "png")
        XCTAssertEqual(photo["type"], "overlay")
        XCTAssertNil(photo["json"])
        XCTAssertNil(photo["attribution"])
        let queue = try DatabaseQueue(path: written[0].path)
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "PRAGMA application_id") }, 0x4D50_4258)
        try queue.close()
    }

    func testSourceChoosesOneFileAndAnUnknownOneIsNamed() throws {
        let pack = try makePack()
        let out = temp.path("photo.mbtiles")
        let written = try MBTilesExport(database: database, pack: pack, source: "photo/2").write(to: out).files
        XCTAssertEqual(written.map(\.path), [out])
        XCTAssertEqual(try MBTilesRows.metadata(of: out)["name"], "two photo/2")
        XCTAssertThrowsError(try MBTilesExport(database: database, pack: pack, source: "trails").write(to: out)) { error in
            XCTAssertEqual(
                "\(error)", #"pack "two" has no tiled source "trails" (its tiled sources: "roads", "photo/2")"#)
        }
    }

    /// A failure inside the transaction leaves neither the target nor a temporary file; a file
    /// already at the target stays as it was.
    func testAFailedExportLeavesNothingBehind() throws {
        let out = temp.path("kept.mbtiles")
        try Data("an older file".utf8).write(to: URL(fileURLWithPath: out))
        XCTAssertThrowsError(try MBTilesWriter.write(to: out) { inserter in
            try inserter.insert(z: 0, column: 0, row: 0, data: Data([1]))
            throw CancellationError()
        })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), Data("an older file".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path)
        XCTAssertEqual(left.filter { $0.contains("mbtiles") }, ["kept.mbtiles"])
        XCTAssertThrowsError(
            try MBTilesExport(database: database, pack: makePack()).write(to: temp.path("absent/out.mbtiles"))
        ) { error in
            XCTAssertTrue("\(error)".contains("absent/"), "\(error)")
        }
    }

    func testCoordinatesOutsideTheGridNeverTrap() {
        XCTAssertEqual(MBTilesTiles.tmsRow(z: 0, x: 0, xyzRow: 0), 0)
        XCTAssertEqual(MBTilesTiles.tmsRow(z: 24, x: 0, xyzRow: 0), (1 << 24) - 1)
        for (z, x, y) in [(-1, 0, 0), (25, 0, 0), (Int.max, 0, 0), (Int.min, 0, 0), (2, 4, 0), (2, 0, -1), (2, 0, Int.min)] {
            XCTAssertNil(MBTilesTiles.tmsRow(z: z, x: x, xyzRow: y), "\(z)/\(x)/\(y)")
        }
    }

    func testNumbersAreWrittenAsTheSpecsExamplesWriteThem() {
        XCTAssertEqual(MBTilesMetadata.text(-180), "-180")
        XCTAssertEqual(MBTilesMetadata.text(24.5), "24.5")
        XCTAssertEqual(MBTilesMetadata.text(.infinity), "inf")
    }

    /// The centre's zoom is one of the file's zooms, whatever the TileJSON or the extent say.
    func testTheCentreZoomIsOneTheFileHolds() {
        let bounds = Bounds(west: 24, south: 60, east: 25, north: 61)
        let stored: JSONValue = .array([24.5, 60.5, 20].map(JSONValue.number))
        XCTAssertEqual(MBTilesMetadata.center(stored, in: bounds, zooms: 2...14), [24.5, 60.5, 14])
        // A one-degree extent spans about one tile at zoom 8.
        XCTAssertEqual(MBTilesMetadata.center(nil, in: bounds, zooms: 2...14), [24.5, 60.5, 8])
        XCTAssertEqual(MBTilesMetadata.center(nil, in: bounds, zooms: 10...12), [24.5, 60.5, 10])
    }

    /// A source the pack holds no tile of gets no file; a pack with none at all is an error.
    func testASourceWithoutTilesGetsNoFile() throws {
        let pack = try makePack()
        try drop("photo/{z}/{x}/{y}.png", 2, 2, 1, from: pack)
        let out = temp.path("out.mbtiles")
        let written = try MBTilesExport(database: database, pack: pack).write(to: out).files
        XCTAssertEqual(written.map(\.path), [temp.path("out.roads.mbtiles")])
        for (z, x, y) in [(3, 4, 2), (4, 9, 4), (3, 9, 0)] { try drop("roads/{z}/{x}/{y}.pbf", z, x, y, from: pack) }
        XCTAssertThrowsError(try MBTilesExport(database: database, pack: pack).write(to: temp.path("none.mbtiles"))) {
            XCTAssertEqual($0 as? InterchangeError, .nothingToExport(pack: "two", lacking: "tiles"))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.contains("mbtiles") }
        XCTAssertEqual(left, ["out.roads.mbtiles"])
    }

    private func drop(_ path: String, _ z: Int, _ x: Int, _ y: Int, from pack: Pack) throws {
        let key = TileKey(urlTemplate: "http://example.test/" + path, pixelRatio: 1, z: z, x: x, y: y)
        try database.write { batch in
            guard let id = try batch.tileID(key) else { return XCTFail("no tile \(key)") }
            try batch.unlink(tile: id, from: pack.id)
        }
    }

    // MARK: - Reading the file back with SQL

    private func rows(of path: String) throws -> [(coordinate: String, data: Data)] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY 1, 2, 3")
                .map { row in ("\(row[0] as Int)/\(row[1] as Int)/\(row[2] as Int)", row[3] as Data) }
        }
    }

}
