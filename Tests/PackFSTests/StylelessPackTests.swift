import Basics
import Foundation
import PackFS
import PackStore
import StyleModel
import TestSupport
import XCTest

/// Packs with tiles but no usable style (docs/design.md §2, issue 11): an app's pack whose style
/// row is missing, and a pack imported from an MBTiles file. The mount shows every tile template
/// as `sources/<id>/`, the first as the primary directory, and a minimal style.json that names
/// every source and every vector layer.
final class StylelessPackTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    let vectorTile = ProjectPaths.world.appendingPathComponent("tiles/land/3/4/2.pbf")
    let rasterTile = ProjectPaths.world.appendingPathComponent("tiles/geography-class-png/1/1/0.png")
    let area = RegionDefinition.Area.bounds(Bounds(west: -180, south: -85, east: 180, north: 85))

    func testAnAppPackWithoutItsStyleRowShowsEveryTemplate() throws {
        let vector = try Data(contentsOf: vectorTile)
        let raster = try Data(contentsOf: rasterTile)
        let pack = try database.createPack(
            name: "app", definition: RegionDefinition(styleURL: "https://maps.example/styles/gone.json", area: area, minZoom: 0, maxZoom: 3))
        let land = TileKey(urlTemplate: "https://maps.example/data/land/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 3, x: 4, y: 2)
        let relief = TileKey(urlTemplate: "https://maps.example/relief/{z}/{x}/{y}.png", pixelRatio: 1, z: 1, x: 1, y: 0)
        try database.write { batch in
            try batch.link(tile: batch.putTile(land, data: .encoding(vector), headers: CacheHeaders()), to: pack.id)
            try batch.link(tile: batch.putTile(relief, data: .encoding(raster), headers: CacheHeaders()), to: pack.id)
        }
        let walker = TreeWalker(fs: PackFilesystem(database: database, mountpoint: "/mnt"))
        XCTAssertEqual(try walker.read("packs/app/sources/land/3/4/2.pbf"), vector)
        XCTAssertEqual(try walker.read("packs/app/sources/relief/1/1/0.png"), raster)
        XCTAssertEqual(try walker.read("packs/app/3/4/2.pbf"), vector, "the first template is the primary directory")

        let style = try JSONValue.parsing(try walker.read("packs/app/style.json"))
        XCTAssertEqual(style["sources"]?["land"]?["tiles"]?.array?.first?.string, "file:///mnt/packs/app/sources/land/{z}/{x}/{y}.pbf")
        XCTAssertEqual(style["sources"]?["relief"]?["type"]?.string, "raster")
        XCTAssertEqual(style["sources"]?["relief"]?["tileSize"]?.number, 256, "the PNG's own width")
        let layerIDs = style["layers"]?.array?.compactMap { $0["id"]?.string } ?? []
        XCTAssertTrue(layerIDs.contains("land/land/fill"), "the vector layer read from the tile: \(layerIDs)")
        XCTAssertTrue(layerIDs.contains("relief"), "\(layerIDs)")
    }

    func testAnImportedPackIsShownThroughItsTileJSON() throws {
        let urls = ImportedFiles.urls(scheme: ImportedFiles.mbtilesScheme, name: "world land")
        let pack = try database.createPack(
            name: "world land", definition: RegionDefinition(styleURL: urls.style, area: area, minZoom: 0, maxZoom: 3))
        let tileJSON = #"{"tilejson":"3.0.0","tiles":["\#(urls.template)"],"minzoom":0,"maxzoom":6,"vector_layers":[{"id":"water","fields":{}},{"id":"land","fields":{}}]}"#
        let vector = try Data(contentsOf: vectorTile)
        try database.write { batch in
            try batch.link(resource: batch.putResource(url: urls.tileJSON, kind: .source, data: .encoding(Data(tileJSON.utf8)), headers: CacheHeaders()), to: pack.id)
            let key = TileKey(urlTemplate: urls.template, pixelRatio: 1, z: 3, x: 4, y: 2)
            try batch.link(tile: batch.putTile(key, data: .encoding(vector), headers: CacheHeaders()), to: pack.id)
        }
        let walker = TreeWalker(fs: PackFilesystem(database: database, mountpoint: "/mnt"))
        XCTAssertEqual(try walker.read("packs/world land/sources/world land/3/4/2.pbf"), vector)
        let style = try JSONValue.parsing(try walker.read("packs/world land/style.json"))
        XCTAssertEqual(style["sources"]?["world land"]?["maxzoom"]?.number, 6, "zooms from the stored TileJSON")
        let layerIDs = style["layers"]?.array?.compactMap { $0["id"]?.string } ?? []
        XCTAssertTrue(layerIDs.contains("world land/water/line"), "\(layerIDs)")
    }

    func testNoOtherDocumentMayNameAnImportedFilesTiles() throws {
        let style = #"{"version":8,"sources":{"s":{"type":"vector","tiles":["mbtiles://x/{z}/{x}/{y}"]}},"layers":[]}"#
        XCTAssertThrowsError(try Style(data: Data(style.utf8), url: "https://maps.example/style.json"))
        XCTAssertThrowsError(try Style(data: Data(style.utf8), url: "mbtiles://y"), "another file's namespace")
        XCTAssertNoThrow(try Style(data: Data(style.utf8), url: "mbtiles://x"))
    }
}
