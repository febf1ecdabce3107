import Basics
import Foundation
import PackStore
import XCTest

@testable import StyleModel

/// Tiled sources: templates and keys, zoom mapping, TileJSON, mapbox:// keys, reference resolution
/// and percent-encoding.
final class TileSourceTests: XCTestCase {
    private func source(
        _ template: String, type: TileSourceType = .vector, scheme: TileScheme = .xyz,
        tileSize: Int = 512, min: Int = 0, max: Int = 22
    ) -> TileSource {
        TileSource(
            id: "s", type: type, urlTemplate: template, scheme: scheme, tileSize: tileSize,
            minZoom: min, maxZoom: max)
    }

    /// The tiled source `s` of a style at https://h.test/style.json holding only it.
    private func declared(_ sourceJSON: String) throws -> StyleSource {
        let text = #"{"version":8,"sources":{"s":\#(sourceJSON)},"layers":[]}"#
        return try XCTUnwrap(try Style(data: Data(text.utf8), url: "https://h.test/style.json").tileSources.first)
    }

    // MARK: - Tile templates and keys

    func testTMSFlipsTheRequestedRowInKeyAndURL() {
        let tile = source("https://t.test/{z}/{x}/{y}.png", scheme: .tms).tile(
            z: 3, x: 1, y: 2, pixelRatio: 1)
        XCTAssertEqual(
            tile.key, TileKey(urlTemplate: "https://t.test/{z}/{x}/{y}.png", pixelRatio: 1, z: 3, x: 1, y: 5))
        XCTAssertEqual(tile.url, "https://t.test/3/1/5.png")
        XCTAssertEqual(TileURLTemplate.url(for: tile.key), tile.url)
        XCTAssertEqual(
            source("https://t.test/{z}/{x}/{y}.png").tile(z: 3, x: 1, y: 2, pixelRatio: 1).key.y, 2)
    }

    func testRatioTokenAndKeyPixelRatio() {
        let withRatio = source("https://t.test/{z}/{x}/{y}{ratio}.png", type: .raster)
        let hi = withRatio.tile(z: 1, x: 0, y: 1, pixelRatio: 1.5)
        XCTAssertEqual(hi.key.pixelRatio, 2)
        XCTAssertEqual(hi.url, "https://t.test/1/0/1@2x.png")
        XCTAssertEqual(TileURLTemplate.url(for: hi.key), hi.url)
        let lo = withRatio.tile(z: 1, x: 0, y: 1, pixelRatio: 1)
        XCTAssertEqual(lo.key.pixelRatio, 1)
        XCTAssertEqual(lo.url, "https://t.test/1/0/1.png")
        // No {ratio} in the template: ratio 1 in the key whatever the pack's ratio.
        XCTAssertEqual(
            source("https://t.test/{z}/{x}/{y}.png").tile(z: 1, x: 0, y: 1, pixelRatio: 3).key.pixelRatio, 1)
    }

    func testPrefixQuadkeyAndBBoxTokens() {
        let template = "https://{prefix}.t.test/{quadkey}/{z}-{x}-{y}?bbox={bbox-epsg-3857}&keep={other}"
        let tile = source(template).tile(z: 3, x: 3, y: 5, pixelRatio: 1)
        XCTAssertTrue(tile.url.hasPrefix("https://35.t.test/213/3-3-5?bbox="), tile.url)
        XCTAssertTrue(tile.url.hasSuffix("&keep={other}"))
        XCTAssertEqual(source("{prefix}").tile(z: 5, x: 17, y: 30, pixelRatio: 1).url, "1e")
        XCTAssertEqual(TileURLTemplate.quadkey(z: 0, x: 0, y: 0), "")
        let world = "20037508.342789244"
        XCTAssertEqual(TileURLTemplate.bbox(z: 0, x: 0, y: 0), "-\(world),-\(world),\(world),\(world)")
        XCTAssertEqual(TileURLTemplate.bbox(z: 1, x: 1, y: 0), "0,0,\(world),\(world)")
    }

    func testUnclosedAndUnknownTokensStayAsWritten() {
        XCTAssertEqual(
            Tokens.replace(in: "a{z}{b{x}c}{") { $0 == "z" ? "1" : $0 == "x" ? "2" : nil }, "a1{b2c}{")
    }

    // MARK: - Zoom mapping

    func testCoveringZooms() {
        XCTAssertEqual(source("t").coveringZooms(minZoom: 2.7, maxZoom: 9.9), 2...9)
        XCTAssertEqual(
            source("t", type: .raster, tileSize: 256).coveringZooms(minZoom: 2.5, maxZoom: 9.4), 4...10)
        XCTAssertEqual(
            source("t", type: .rasterDEM, tileSize: 256, max: 12).coveringZooms(minZoom: 0, maxZoom: 14),
            1...12)
        XCTAssertEqual(source("t", type: .raster).coveringZooms(minZoom: 3.5, maxZoom: 5), 4...5)
        XCTAssertEqual(
            source("t", type: .raster, tileSize: 1024).coveringZooms(minZoom: 0, maxZoom: 3), 0...2)
        XCTAssertEqual(source("t", min: 4, max: 15).coveringZooms(minZoom: 0, maxZoom: nil), 4...15)
        XCTAssertNil(source("t", max: 4).coveringZooms(minZoom: 6, maxZoom: 8))
    }

    // MARK: - TileJSON

    func testTileJSONWithStyleOverrides() throws {
        let style = try declared(
            #"{"type":"raster","url":"https://t.test/a.json","maxzoom":9,"tileSize":256}"#)
        let tileJSON = #"""
            {"tilejson":"2.2.0","tiles":["https://a.t.test/{z}/{x}/{y}.png","https://b.t.test/{z}/{x}/{y}.png"],
             "scheme":"tms","minzoom":2,"maxzoom":18,"bounds":[-200,-95,10,20],"attribution":"A",
             "vector_layers":[{"id":"x"}],"tileSize":512}
            """#
        let tiles = try style.tileSource(tileJSON: Data(tileJSON.utf8))
        XCTAssertEqual(
            tiles,
            TileSource(
                id: "s", type: .raster, urlTemplate: "https://a.t.test/{z}/{x}/{y}.png", scheme: .tms,
                tileSize: 256, minZoom: 2, maxZoom: 9,
                bounds: Bounds(west: -180, south: -90, east: 10, north: 20), attribution: "A"))
    }

    func testBrokenTileJSONNamesItsURL() throws {
        let style = try declared(#"{"type":"vector","url":"https://t.test/broken.json"}"#)
        let cases: [(String, String)] = [
            ("{\"tiles\": [", "not valid JSON"), ("\"tiles\"", "not a JSON object"), ("{}", "tiles"),
            (#"{"tiles":[]}"#, "tiles"), (#"{"tiles":[3]}"#, "tiles"),
            (#"{"tiles":["https://t/{z}"],"minzoom":"0"}"#, "minzoom"),
            (#"{"tiles":["https://t/{z}"],"bounds":[0,10,1,5]}"#, "bounds"),
            (#"{"tiles":["file:///t/{z}"]}"#, "file:///t/{z}"),
        ]
        for (text, needle) in cases {
            XCTAssertThrowsError(try style.tileSource(tileJSON: Data(text.utf8))) { error in
                XCTAssertTrue("\(error)".contains("https://t.test/broken.json"), "\(error)")
                XCTAssertTrue("\(error)".contains(needle), "\(error)")
            }
        }
    }

    func testMapboxKeysStayInMapboxForm() throws {
        let style = """
            {"version":8,"sprite":"mapbox://sprites/mapbox/bright-v9","glyphs":"mapbox://fonts/mapbox/{fontstack}/{range}.pbf",
             "sources":{"v":{"type":"vector","url":"mapbox://mapbox.mapbox-streets-v8"},
                        "r":{"type":"raster","url":"mapbox://mapbox.satellite","tileSize":256}},
             "layers":[{"id":"l","type":"symbol","source":"v","layout":{"text-field":"x"}}]}
            """
        let plan = try Style(data: Data(style.utf8), url: "mapbox://styles/mapbox/bright-v9")
        XCTAssertEqual(
            plan.resources(includeIdeographs: false).prefix(3).map(\.url),
            [
                "mapbox://mapbox.mapbox-streets-v8", "mapbox://mapbox.satellite",
                "mapbox://sprites/mapbox/bright-v9.json",
            ])
        XCTAssertTrue(
            plan.resources(includeIdeographs: false).contains(
                StyleResource(
                    url:
                        "mapbox://fonts/mapbox/Open%20Sans%20Regular%2cArial%20Unicode%20MS%20Regular/0-255.pbf",
                    kind: .glyphs)))
        let vector = try plan.tileSources[0].tileSource(
            tileJSON: Data(
                #"""
                {"tiles":["https://a.tiles.mapbox.com/v4/mapbox.mapbox-streets-v8/{z}/{x}/{y}.vector.pbf?access_token=pk.X"]}
                """#.utf8))
        XCTAssertEqual(vector.urlTemplate, "mapbox://tiles/mapbox.mapbox-streets-v8/{z}/{x}/{y}.vector.pbf")
        XCTAssertTrue(vector.isMapbox)
        let raster = try plan.tileSources[1].tileSource(
            tileJSON: Data(
                #"""
                {"tiles":["https://api.mapbox.com/v4/mapbox.satellite/{z}/{x}/{y}.webp?style=x&access_token=pk.X"]}
                """#.utf8))
        XCTAssertEqual(raster.urlTemplate, "mapbox://tiles/mapbox.satellite/{z}/{x}/{y}{ratio}.webp?style=x")
        let tile = raster.tile(z: 1, x: 1, y: 0, pixelRatio: 2)
        XCTAssertEqual(tile.key.pixelRatio, 2)
        XCTAssertFalse(source("https://a.tiles.mapbox.com/v4/x/{z}/{x}/{y}.png").isMapbox)
    }

    // MARK: - Resolution and encoding

    func testReferenceResolution() {
        let base = "http://h.test/a/b/c.json?q=1#f"
        let expected = [
            ("d.json", "http://h.test/a/b/d.json"), ("../d", "http://h.test/a/d"),
            ("../../../d", "http://h.test/d"),
            ("./", "http://h.test/a/b/"), ("/x/./y/../z", "http://h.test/x/z"),
            ("?r=2", "http://h.test/a/b/c.json?r=2"),
            ("//cdn.test/x", "http://cdn.test/x"), ("HTTPS://X.test/a", "HTTPS://X.test/a"),
            ("{z}/{x}/{y}.pbf", "http://h.test/a/b/{z}/{x}/{y}.pbf"),
        ]
        for (reference, absolute) in expected {
            XCTAssertEqual(URLString.resolve(reference, against: base), absolute, reference)
        }
        XCTAssertEqual(URLString.resolve("x", against: "http://h.test"), "http://h.test/x")
        XCTAssertNil(URLString.resolve("x", against: "mapbox://styles/a/b"))
    }

    func testPercentEncoding() {
        XCTAssertEqual(
            Tokens.percentEncode("Noto Sans Regular,Arial Unicode MS Regular"),
            "Noto%20Sans%20Regular%2cArial%20Unicode%20MS%20Regular")
        XCTAssertEqual(Tokens.percentEncode("aZ09-_.~ /?#%é"), "aZ09-_.~%20%2f%3f%23%25%c3%a9")
    }
}

/// `pmtiles://` source URLs (MapLibre's PMTiles protocol).
final class ArchiveURLTests: XCTestCase {
    func testOnlyHTTPArchivesAreRemoteArchives() {
        XCTAssertEqual(ArchiveURL.archiveURL(of: "pmtiles://https://h/a.pmtiles"), "https://h/a.pmtiles")
        XCTAssertNil(ArchiveURL.archiveURL(of: "pmtiles://helsinki"), "an imported file's namespace")
        XCTAssertNil(ArchiveURL.archiveURL(of: "pmtiles://file:///etc/passwd"))
        XCTAssertNil(ArchiveURL.archiveURL(of: "https://h/a.pmtiles"))
        XCTAssertFalse(ImportedFiles.isImported("pmtiles://https://h/a.pmtiles"))
        XCTAssertTrue(ImportedFiles.isImported("pmtiles://helsinki/{z}/{x}/{y}"))
        let template = ArchiveURL.template(of: "pmtiles://https://h/a.pmtiles")
        XCTAssertEqual(template, "pmtiles://https://h/a.pmtiles/{z}/{x}/{y}")
        XCTAssertEqual(ArchiveURL.sourceURL(ofTemplate: template), "pmtiles://https://h/a.pmtiles")
        XCTAssertNil(ArchiveURL.sourceURL(ofTemplate: "https://h/{z}/{x}/{y}"))
    }

    func testAStyleNamesAnArchiveOnlyAsATiledSourceURL() throws {
        let style = """
            {"version": 8, "sources": {"a": {"type": "vector", "url": "pmtiles://https://h/a.pmtiles"}}, "layers": []}
            """
        let parsed = try Style(data: Data(style.utf8), url: "https://h/style.json")
        XCTAssertEqual(parsed.tileSources.first?.url, "pmtiles://https://h/a.pmtiles")
        let glyphs = """
            {"version": 8, "glyphs": "pmtiles://https://h/a.pmtiles/{fontstack}/{range}", "sources": {}, "layers": []}
            """
        XCTAssertThrowsError(try Style(data: Data(glyphs.utf8), url: "https://h/style.json"))
        let local = """
            {"version": 8, "sources": {"a": {"type": "vector", "url": "pmtiles://file:///tmp/a.pmtiles"}}, "layers": []}
            """
        XCTAssertThrowsError(try Style(data: Data(local.utf8), url: "https://h/style.json"))
        // An archive's TileJSON names its own tiles; an http TileJSON may not name an archive's.
        let source = try XCTUnwrap(parsed.tileSources.first)
        let tileJSON = #"{"tiles": ["pmtiles://https://h/a.pmtiles/{z}/{x}/{y}"]}"#
        XCTAssertEqual(try source.tileSource(tileJSON: Data(tileJSON.utf8)).urlTemplate, "pmtiles://https://h/a.pmtiles/{z}/{x}/{y}")
        let http = """
            {"version": 8, "sources": {"a": {"type": "vector", "url": "https://h/tiles.json"}}, "layers": []}
            """
        let plain = try XCTUnwrap(Style(data: Data(http.utf8), url: "https://h/style.json").tileSources.first)
        XCTAssertThrowsError(try plain.tileSource(tileJSON: Data(tileJSON.utf8)))
    }
}
