import Basics
import Foundation
import PackFS
import PackStore
import TestSupport
import XCTest

/// A pack as a Mapbox or MapLibre app stores it: a `mapbox://` source whose stored TileJSON lists
/// https tile URLs with a token, and tiles keyed under `mapbox://tiles/...`. The mount finds them.
final class MapboxPackTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    func testTilesKeyedUnderTheCanonicalTemplateAppear() throws {
        let styleURL = "mapbox://styles/test/bright"
        let style = #"{"version":8,"sources":{"streets":{"type":"vector","url":"mapbox://mapbox.test-streets"}},"layers":[]}"#
        let tileJSON = #"{"tilejson":"2.2.0","tiles":["https://api.mapbox.com/v4/mapbox.test-streets/{z}/{x}/{y}.vector.pbf?access_token=pk.secret"],"maxzoom":14}"#
        let pack = try database.createPack(
            name: "app", definition: RegionDefinition(
                styleURL: styleURL, area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)),
                minZoom: 14, maxZoom: 14))
        let key = TileKey(urlTemplate: "mapbox://tiles/mapbox.test-streets/{z}/{x}/{y}.vector.pbf", pixelRatio: 1, z: 14, x: 9327, y: 4742)
        try database.write { batch in
            try batch.link(resource: batch.putResource(url: styleURL, kind: .style, data: .encoding(Data(style.utf8)), headers: CacheHeaders()), to: pack.id)
            try batch.link(resource: batch.putResource(url: "mapbox://mapbox.test-streets", kind: .source, data: .encoding(Data(tileJSON.utf8)), headers: CacheHeaders()), to: pack.id)
            try batch.link(tile: batch.putTile(key, data: .encoding(Data("vector tile bytes".utf8)), headers: CacheHeaders()), to: pack.id)
        }
        let walker = TreeWalker(fs: PackFilesystem(database: database, mountpoint: "/mnt"))
        let tile = try walker.lookup("packs/app/14/9327/4742.pbf").attributes
        XCTAssertEqual(try walker.read(tile.inode, size: tile.size), Data("vector tile bytes".utf8))
        let styleFile = try walker.lookup("packs/app/style.json").attributes
        let rewritten = String(decoding: try walker.read(styleFile.inode, size: styleFile.size), as: UTF8.self)
        XCTAssertFalse(rewritten.contains("pk.secret"), "no token in the mount's style")
        XCTAssertTrue(rewritten.contains("file:///mnt/packs/app/sources/streets/{z}/{x}/{y}.pbf"), rewritten)
    }
}
