import Basics
import Downloader
import Foundation
import PackStore
import TestSupport
import XCTest

/// `--rewrite`, `--allow-host`, `mapbox://` and the Mapbox tile limit, through a whole download.
final class URLPolicyDownloadTests: PackFSTestCase {
    var path: String { databasePath }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer.nginx()
    }


    private func run(style: String, options: DownloadOptions) throws -> (PackStatus, OfflineDatabase) {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        let definition = RegionDefinition(
            styleURL: style, area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)),
            minZoom: 0, maxZoom: 14)
        let pack = try database.createPack(name: "p\(try database.packs().count)", definition: definition)
        return (PackDownload(database: database, region: pack.id, definition: definition, options: options).run(), database)
    }

    func testRewriteFetchesFromTheMirrorAndStoresTheOriginalURL() throws {
        var options = DownloadOptions()
        options.urlPolicy = URLPolicy(
            rewrites: [URLRewrite(from: "https://tiles.example.invalid/", to: server.baseURL + "/")],
            allowedHosts: ["127.0.0.1"])
        let (status, database) = try run(style: "https://tiles.example.invalid/styles/bright.json", options: options)
        defer { try? database.close() }
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        XCTAssertNotNil(try database.resource(url: "https://tiles.example.invalid/styles/bright.json"), "stored as the style names it")
        XCTAssertEqual(try server.waitForLog(count: 322).first?.uri, "/styles/bright.json")
    }

    func testAHostNotAllowedIsNeverContacted() throws {
        var options = DownloadOptions()
        options.urlPolicy = URLPolicy(allowedHosts: ["tiles.example.org"])
        let (status, database) = try run(style: server.baseURL + "/styles/bright.json", options: options)
        defer { try? database.close() }
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.contains("127.0.0.1") == true, status.error ?? "")
        XCTAssertEqual(try server.settledAccessLog().count, 0)
    }

    func testMapboxStyleNeedsATokenAndCountsAgainstTheMapboxLimit() throws {
        // A world whose style names mapbox:// tiles, served through a rewrite of mapbox://tiles/.
        let world = temp.url.appendingPathComponent("world")
        try FileManager.default.createDirectory(at: world.appendingPathComponent("styles"), withIntermediateDirectories: true)
        let style = #"{"version":8,"sources":{"mb":{"type":"vector","tiles":["mapbox://tiles/test.helsinki/{z}/{x}/{y}.pbf"],"maxzoom":14}},"layers":[]}"#
        try style.write(to: world.appendingPathComponent("styles/mb.json"), atomically: true, encoding: .utf8)
        let mirror = try TestServer.nginx(world: world)
        defer { mirror.stop() }
        var options = DownloadOptions()
        options.urlPolicy = URLPolicy(rewrites: [URLRewrite(from: "mapbox://tiles/test.helsinki/", to: server.baseURL + "/tiles/helsinki/")])
        options.mapboxTileLimit = 10
        let (status, first) = try run(style: mirror.baseURL + "/styles/mb.json", options: options)
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.contains("Mapbox tile limit") == true, status.error ?? "")
        XCTAssertEqual(try first.tileTotals(includingAll: true).all, 0)
        try first.close()

        let (untokened, second) = try run(style: mirror.baseURL + "/styles/mb.json", options: DownloadOptions())
        XCTAssertEqual(untokened.state, .error)
        XCTAssertTrue(untokened.error?.contains("access token") == true, untokened.error ?? "")
        try second.close()

        options.mapboxTileLimit = 6000
        let (complete, database) = try run(style: mirror.baseURL + "/styles/mb.json", options: options)
        defer { try? database.close() }
        XCTAssertEqual(complete.state, .complete, complete.error ?? "")
        let templates = Set(try database.tileKeys(of: RegionID(3)).map(\.urlTemplate))
        XCTAssertEqual(templates, ["mapbox://tiles/test.helsinki/{z}/{x}/{y}.pbf"], "stored in mapbox:// form")
        // Without the TileJSON's bounds the region covers 21 tiles; the 2 the server lacks (404)
        // are stored as "no content".
        XCTAssertEqual(try database.tileTotals(includingAll: false).mapbox, 21)
        let keys = try database.tileKeys(of: RegionID(3))
        XCTAssertEqual(try keys.filter { try database.tile($0)?.data.bytes != nil }.count, 19)
    }
}
