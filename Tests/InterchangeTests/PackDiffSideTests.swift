import Basics
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

@testable import Interchange

/// A pack as a side of a diff is its MBTiles export: against the export it gives a patch without
/// tiles and the export's hash (a raw vector tile gzipped as the export gzips it, a tile off the
/// grid left out as the export leaves it); its source chosen as the export chooses it.
final class PackDiffSideTests: PackFSTestCase {
    var path: String { temp.path("packs.db") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try makePack()
    }

    func testAPackAgainstItsExportIsAPatchWithoutTiles() throws {
        let export = temp.path("roads.mbtiles")
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        let file = try MBTilesExport(database: database, pack: database.pack(named: "two"), source: "roads").write(to: export)
        try database.close()
        XCTAssertEqual(file.files.map(\.tiles), [2])
        let pack = try PackDiffSide(pack: "two", database: path, source: "roads")
        let exported = try FileDiffSide(path: export)
        defer {
            pack.close()
            exported.close()
        }
        XCTAssertEqual(pack.format, "pbf")
        XCTAssertEqual(pack.label, "pack \"two\" of \(path)")
        for (old, new, name) in [(pack, exported, "a") as (any DiffSide, any DiffSide, String), (exported, pack, "b")] {
            let summary = try TileDiff(old: old, new: new).write(to: temp.path("\(name).mbtiles"))
            XCTAssertEqual(summary.hash, "D41D8CD98F00B204E9800998ECF8427E", name)
            XCTAssertEqual([summary.changed, summary.added, summary.deleted, summary.oldTiles], [0, 0, 0, 2], name)
            XCTAssertEqual(summary.beforeApply, summary.afterApply, name)
        }
        let queue = try DatabaseQueue(path: export)
        let storedHash = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE name = 'agg_tiles_hash'")
        }
        try queue.close()
        let again = try TileDiff(old: pack, new: exported).write(to: temp.path("c.mbtiles"))
        XCTAssertEqual(again.beforeApply, storedHash)
    }

    func testTheSourceIsChosenAsTheExportChoosesIt() throws {
        XCTAssertThrowsError(try PackDiffSide(pack: "two", database: path, source: nil)) { error in
            XCTAssertEqual(error as? InterchangeError, .severalSources(pack: "two", known: ["roads", "photo/2"]))
            XCTAssertEqual("\(error)", #"pack "two" has several tiled sources ("roads", "photo/2"): name one with --source"#)
        }
        XCTAssertThrowsError(try PackDiffSide(pack: "two", database: path, source: "trails")) { error in
            XCTAssertEqual(error as? InterchangeError, .noSuchSource(pack: "two", source: "trails", known: ["roads", "photo/2"]))
        }
        XCTAssertThrowsError(try PackDiffSide(pack: "three", database: path, source: nil)) { error in
            XCTAssertEqual("\(error)", #"no pack named "three""#)
        }
        let photo = try PackDiffSide(pack: "two", database: path, source: "photo/2")
        let roads = try PackDiffSide(pack: "two", database: path, source: "roads")
        defer {
            photo.close()
            roads.close()
        }
        XCTAssertEqual(photo.format, "png")
        XCTAssertThrowsError(try TileDiff(old: roads, new: photo).write(to: temp.path("mixed.mbtiles"))) { error in
            XCTAssertEqual(
                error as? InterchangeError,
                .formatsDiffer(old: roads.label, oldFormat: "pbf", new: photo.label, newFormat: "png"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("mixed.mbtiles")))
    }

    /// Pack "two": a vector source `roads` with a raw tile, a gzipped one and one off zoom 3's
    /// grid, and a raster source `photo/2` with one tile.
    private func makePack() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let definition = RegionDefinition(
            styleURL: "http://example.test/style.json",
            area: .bounds(Bounds(west: 24.9, south: 60.1, east: 25.0, north: 60.2)), minZoom: 0, maxZoom: 14)
        let pack = try database.createPack(name: "two", definition: definition)
        let style = """
            {"version": 8, "sources": {
              "roads": {"type": "vector", "tiles": ["http://example.test/roads/{z}/{x}/{y}.pbf"]},
              "trails": {"type": "geojson", "data": "http://example.test/trails.geojson"},
              "photo/2": {"type": "raster", "tiles": ["http://example.test/photo/{z}/{x}/{y}.png"]}},
             "layers": [{"id": "a", "type": "line", "source": "roads", "source-layer": "streets"},
                        {"id": "b", "type": "raster", "source": "photo/2"}]}
            """
        try database.write { batch in
            let resource = try batch.putResource(
                url: definition.styleURL, kind: .style, data: .encoding(Data(style.utf8)), headers: CacheHeaders())
            try batch.link(resource: resource, to: pack.id)
            let tiles: [(String, Int, Int, Int, Data)] = [
                ("roads/{z}/{x}/{y}.pbf", 3, 4, 2, Data("raw tile".utf8)),
                ("roads/{z}/{x}/{y}.pbf", 4, 9, 4, try Zlib.gzip(Data("gzipped tile".utf8))),
                ("roads/{z}/{x}/{y}.pbf", 3, 9, 0, Data("off the grid".utf8)),
                ("photo/{z}/{x}/{y}.png", 2, 2, 1, Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1])),
            ]
            for (template, z, x, y, data) in tiles {
                let key = TileKey(urlTemplate: "http://example.test/" + template, pixelRatio: 1, z: z, x: x, y: y)
                try batch.link(tile: batch.putTile(key, data: .encoding(data), headers: CacheHeaders()), to: pack.id)
            }
        }
    }
}
