import Basics
import Downloader
import Foundation
import PackStore
import StyleModel
import TestSupport
import XCTest

/// What is stored is what it claims to be (docs/design.md §4): the fault server's overlay gives
/// one resource of the fixture world the wrong bytes; the pack ends in `error` naming its URL,
/// what was expected and what came, and nothing of that resource is stored.
final class ContentKindDownloadTests: PackDownloadTestCase {
    var origin: TestServer!
    var base: String { origin.baseURL }

    override func setUpWithError() throws {
        try super.setUpWithError()
        origin = try TestServer.faultServer()
        server = origin
    }

    /// Serves `bytes` at `path` instead of the world's file.
    func overlay(_ path: String, _ bytes: Data) throws {
        let url = URL(fileURLWithPath: origin.overlayPath).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
    }

    func world(_ path: String) throws -> Data { try Data(contentsOf: ProjectPaths.world.appendingPathComponent(path)) }

    func variety() -> RegionDefinition {
        var definition = helsinki(base)
        definition.styleURL = base + "/styles/variety.json"
        return definition
    }

    /// Downloads `definition` and expects it to stop on `url` (stored form), got `got`.
    func assertRefused(_ url: String, expected: ContentKind, got: String, definition: RegionDefinition? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws -> OfflineDatabase {
        try assertRefused(error: "\(url): expected \(expected.expected), got \(got)", definition: definition, file: file, line: line)
    }

    /// Downloads `definition` and expects it to stop with `error`.
    func assertRefused(error: String, definition: RegionDefinition? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws -> OfflineDatabase {
        let status = try download(definition ?? helsinki(base))
        XCTAssertEqual(status.state, .error, file: file, line: line)
        XCTAssertEqual(status.error, error, file: file, line: line)
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        XCTAssertEqual(try database.progress(of: database.pack(named: "helsinki").id).status.error, status.error, file: file, line: line)
        return database
    }

    /// The planning documents say what the parse found, and what came.
    func testAStyleThatIsAnHTMLPageIsNotStored() throws {
        try overlay("styles/bright.json", Data("<html><head><title>Router login</title></head></html>".utf8))
        let url = base + "/styles/bright.json"
        let status = try download(helsinki(base))
        XCTAssertEqual(status.state, .error)
        let error = try XCTUnwrap(status.error)
        XCTAssertTrue(error.hasPrefix(url + ": style is not valid JSON ("), error)
        XCTAssertTrue(error.hasSuffix(#"; got HTML text "<html><head><title>Router login</title><...""#), error)
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        XCTAssertNil(try database.resource(url: url))
        XCTAssertEqual(try database.databaseCounts().resources, 0)
    }

    func testATileJSONWithoutTilesIsNotStored() throws {
        try overlay("tiles/helsinki.json", Data(#"{"name": "internal", "token": "abc"}"#.utf8))
        let url = base + "/tiles/helsinki.json"
        var database = try assertRefused(error: url + ": tiles: no tile URL template")
        XCTAssertNil(try database.resource(url: url))
        try database.close()
        // A style that lists the tiles itself makes the source whole; the document is still no TileJSON.
        let style = #"{"version": 8, "sources": {"a": {"type": "vector", "url": "\#(url)", "tiles": ["\#(base)/tiles/helsinki/{z}/{x}/{y}.pbf"]}}, "layers": []}"#
        try overlay("styles/inline.json", Data(style.utf8))
        var definition = helsinki(base)
        definition.styleURL = base + "/styles/inline.json"
        databaseFile = "inline.db"
        database = try assertRefused(url, expected: .tileJSON, got: #"a JSON object without a "tiles" array"#, definition: definition)
        XCTAssertNil(try database.resource(url: url))
    }

    func testASpriteIndexThatIsAListOrHasTextPlacesIsNotStored() throws {
        try overlay("sprites/bright.json", Data(#"[{"x": 0, "y": 0}]"#.utf8))
        var database = try assertRefused(base + "/sprites/bright.json", expected: .spriteIndex, got: #"JSON text "[{\"x\": 0, \"y\": 0}]""#)
        XCTAssertNil(try database.resource(url: base + "/sprites/bright.json"))
        try database.close()
        try overlay("sprites/bright.json", try world("sprites/bright.json"))
        databaseFile = "second.db"  // the first run may have stored the @2x index, whole
        try overlay("sprites/bright@2x.json", Data(#"{"poi": {"x": "0", "y": 0, "width": 8, "height": 8}}"#.utf8))
        database = try assertRefused(base + "/sprites/bright@2x.json", expected: .spriteIndex, got: #"a JSON object whose entry "poi" has no numeric x"#)
        XCTAssertNil(try database.resource(url: base + "/sprites/bright@2x.json"))
    }

    func testASpriteImageThatIsJSONIsNotStored() throws {
        try overlay("sprites/bright.png", Data(#"{"error": "forbidden"}"#.utf8))
        let database = try assertRefused(base + "/sprites/bright.png", expected: .spriteImage, got: #"JSON text "{\"error\": \"forbidden\"}""#)
        XCTAssertNil(try database.resource(url: base + "/sprites/bright.png"))
    }

    func testAGlyphRangeThatIsJSONIsNotStored() throws {
        try overlay("fonts/Noto Sans Regular/0-255.pbf", Data(#"{"error": "no such font"}"#.utf8))
        let url = base + "/fonts/Noto%20Sans%20Regular/0-255.pbf"
        let database = try assertRefused(url, expected: .glyphs, got: #"JSON text "{\"error\": \"no such font\"}""#)
        XCTAssertNil(try database.resource(url: url))
    }

    func testAVectorTileThatIsTextIsNotStored() throws {
        try overlay("tiles/helsinki/14/9326/4741.pbf", Data("upstream connect error".utf8))
        let url = base + "/tiles/helsinki/14/9326/4741.pbf"
        let database = try assertRefused(url, expected: .vectorTile, got: #"text "upstream connect error""#)
        let key = TileKey(urlTemplate: base + "/tiles/helsinki/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: 9326, y: 4741)
        XCTAssertNil(try database.tile(key))
    }

    func testARasterTileThatIsTextIsNotStored() throws {
        try overlay("tiles/geography-class-png/1/1/0.png", Data("Not Found".utf8))
        let url = base + "/tiles/geography-class-png/1/1/0.png"
        let database = try assertRefused(url, expected: .rasterTile, got: #"text "Not Found""#)
        let key = TileKey(urlTemplate: base + "/tiles/geography-class-png/{z}/{x}/{y}.png", pixelRatio: 1, z: 1, x: 1, y: 0)
        XCTAssertNil(try database.tile(key))
    }

    func testGeoJSONDataThatIsNotGeoJSONIsNotStored() throws {
        try overlay("data/trails.geojson", Data(#"{"type": "Topology", "objects": {}}"#.utf8))
        let url = base + "/data/trails.geojson"
        let database = try assertRefused(url, expected: .geoJSON, got: #"a JSON object whose "type" is "Topology""#, definition: variety())
        XCTAssertNil(try database.resource(url: url))
    }

    func testAnImageSourceThatIsTextIsNotStored() throws {
        try overlay("images/overlay.png", Data("image service is down".utf8))
        let url = base + "/images/overlay.png"
        let database = try assertRefused(url, expected: .image, got: #"text "image service is down""#, definition: variety())
        XCTAssertNil(try database.resource(url: url))
    }

    /// Every kind of the variety style (raster, TMS and two vector sources, GeoJSON data, an
    /// image, a sprite array, glyphs) passes as served, and a tile gzipped without
    /// Content-Encoding passes too.
    func testTheRightBytesStillPassGzippedTilesToo() throws {
        let tile = "tiles/helsinki/14/9326/4741.pbf"
        try overlay(tile, try Zlib.gzip(try world(tile)))
        let database = try downloadWhole(variety())
        let key = TileKey(urlTemplate: base + "/tiles/helsinki/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: 9326, y: 4741)
        XCTAssertEqual(try database.tile(key)?.data.decoded().map { try Zlib.decompress($0) }, try world(tile))
        XCTAssertNotNil(try database.resource(url: base + "/data/trails.geojson"))
        XCTAssertNotNil(try database.resource(url: base + "/images/overlay.png"))
    }

    /// A `pmtiles://` archive's tile is checked as its source says, after its gzip is undone.
    func testAnArchiveTileThatIsTextIsNotStored() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let served = try XCTUnwrap(nginx.servedRoot).appendingPathComponent("tiles/helsinki.pmtiles").path
        let edit = ProjectPaths.root.appendingPathComponent("Tests/interchange/pmtiles_edit.py").path
        let edited = try Command.run("/usr/bin/env", ["python3", edit, "--text", served, served + ".new", "14/9326/4742"])
        XCTAssertEqual(edited.status, 0, edited.text)
        XCTAssertEqual(rename(served + ".new", served), 0)
        var definition = helsinki(nginx.baseURL)
        definition.styleURL = nginx.baseURL + "/styles/bright-pmtiles.json"
        let template = "pmtiles://" + nginx.baseURL + "/tiles/helsinki.pmtiles/{z}/{x}/{y}"
        let url = template.replacingOccurrences(of: "{z}/{x}/{y}", with: "14/9326/4742")
        let database = try assertRefused(url, expected: .vectorTile, got: #"text "not a tile 14/9326/4742""#, definition: definition)
        XCTAssertNil(try database.tile(TileKey(urlTemplate: template, pixelRatio: 1, z: 14, x: 9326, y: 4742)))
    }

    /// A source whose TileJSON says `"encoding": "mlt"` has MapLibre Tiles: bytes that are no
    /// protobuf are stored, not refused.
    func testAnMLTSourcesTileIsNotRefusedAsBadProtobuf() throws {
        var tileJSON = try XCTUnwrap(JSONValue.parse(try world("tiles/helsinki.json"))?.object)
        tileJSON["encoding"] = .string("mlt")
        try overlay("tiles/helsinki.json", Data(JSONValue.object(tileJSON).compactText.utf8))
        let mlt = Data([0x03, 0x01, 0xFF, 0x7B] + Array("not a protobuf".utf8))
        try overlay("tiles/helsinki/14/9326/4741.pbf", mlt)
        let database = try downloadWhole(helsinki(base))
        let key = TileKey(urlTemplate: base + "/tiles/helsinki/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 14, x: 9326, y: 4741)
        XCTAssertEqual(try database.tile(key)?.data.decoded(), mlt)
    }
}
