import Foundation
import PackStore
import XCTest

@testable import Downloader

/// URLs: tile templates and keys, TileJSON, zoom mapping, mapbox:// expansion, --rewrite and
/// --allow-host.
final class UrlTests: XCTestCase {
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
        let plan = try StylePlan(
            style: Data(text.utf8), url: "https://h.test/style.json", includeIdeographs: false)
        return try XCTUnwrap(plan.tileSources.first)
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

    // MARK: - mapbox://

    func testMapboxExpansionPerKind() throws {
        let policy = URLPolicy(accessToken: "pk.T")
        let api = "https://api.mapbox.com"
        let expected: [(String, ResourceKind, String)] = [
            (
                "mapbox://styles/mapbox/streets-v11", .style,
                api + "/styles/v1/mapbox/streets-v11?access_token=pk.T"
            ),
            (
                "mapbox://styles/mapbox/streets-v11?fresh=true", .style,
                api + "/styles/v1/mapbox/streets-v11?access_token=pk.T&fresh=true"
            ),
            (
                "mapbox://mapbox.mapbox-streets-v8,mapbox.terrain-v2", .source,
                api + "/v4/mapbox.mapbox-streets-v8,mapbox.terrain-v2.json?access_token=pk.T&secure"
            ),
            (
                "mapbox://sprites/mapbox/bright-v9.json", .spriteJSON,
                api + "/styles/v1/mapbox/bright-v9/sprite.json?access_token=pk.T"
            ),
            (
                "mapbox://sprites/mapbox/bright-v9@2x.png", .spriteImage,
                api + "/styles/v1/mapbox/bright-v9/sprite@2x.png?access_token=pk.T"
            ),
            (
                "mapbox://fonts/mapbox/Open%20Sans%20Regular/0-255.pbf", .glyphs,
                api + "/fonts/v1/mapbox/Open%20Sans%20Regular/0-255.pbf?access_token=pk.T"
            ),
            (
                "mapbox://tiles/mapbox.streets/1/0/0.vector.pbf", .tile,
                api + "/v4/mapbox.streets/1/0/0.vector.pbf?access_token=pk.T"
            ),
        ]
        for (url, kind, request) in expected {
            XCTAssertEqual(try policy.requestURL(for: url, kind: kind), request)
        }
        XCTAssertEqual(
            try policy.requestURL(for: "https://x.test/a?b=1", kind: .style), "https://x.test/a?b=1")
    }

    func testMapboxErrors() {
        XCTAssertThrowsError(try URLPolicy().requestURL(for: "mapbox://styles/a/b", kind: .style)) {
            XCTAssertEqual($0 as? DownloadError, .missingAccessToken(url: "mapbox://styles/a/b"))
        }
        let policy = URLPolicy(accessToken: "pk.T")
        for (url, kind) in [
            ("mapbox://tiles/a/b", ResourceKind.style), ("mapbox://fonts/a/b", .tile),
            ("mapbox://styles/a/b", .spriteJSON), ("mapbox://x/y.png", .image),
        ] {
            XCTAssertThrowsError(try policy.requestURL(for: url, kind: kind)) {
                guard case DownloadError.invalidMapboxURL(let named, _) = $0 else { return XCTFail("\($0)") }
                XCTAssertEqual(named, url)
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
        let plan = try StylePlan(
            style: Data(style.utf8), url: "mapbox://styles/mapbox/bright-v9", includeIdeographs: false)
        XCTAssertEqual(
            plan.resources.prefix(3).map(\.url),
            [
                "mapbox://mapbox.mapbox-streets-v8", "mapbox://mapbox.satellite",
                "mapbox://sprites/mapbox/bright-v9.json",
            ])
        XCTAssertTrue(
            plan.resources.contains(
                PlannedResource(
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
        XCTAssertEqual(
            try URLPolicy(accessToken: "pk.T").requestURL(for: tile.url, kind: .tile),
            "https://api.mapbox.com/v4/mapbox.satellite/1/1/0@2x.webp?access_token=pk.T&style=x")
        XCTAssertFalse(source("https://a.tiles.mapbox.com/v4/x/{z}/{x}/{y}.png").isMapbox)
    }

    // MARK: - --rewrite and --allow-host

    func testRewrite() throws {
        let policy = URLPolicy(
            accessToken: "pk.T",
            rewrites: [
                try URLRewrite(argument: "https://tiles.example.com/=http://127.0.0.1:8181/mirror/"),
                try URLRewrite(argument: "mapbox://tiles/=http://127.0.0.1:8181/mb/"),
                try URLRewrite(argument: "https://api.mapbox.com/fonts/=http://127.0.0.1:8181/f/"),
            ])
        XCTAssertEqual(
            try policy.requestURL(for: "https://tiles.example.com/a/1.pbf?k=v", kind: .tile),
            "http://127.0.0.1:8181/mirror/a/1.pbf?k=v")
        XCTAssertEqual(
            try policy.requestURL(for: "mapbox://tiles/a/1/0/0.png", kind: .tile),
            "http://127.0.0.1:8181/mb/a/1/0/0.png")  // stored form: no token needed
        XCTAssertEqual(
            try policy.requestURL(for: "mapbox://fonts/m/A/0-255.pbf", kind: .glyphs),
            "http://127.0.0.1:8181/f/v1/m/A/0-255.pbf?access_token=pk.T")  // expanded form
        XCTAssertEqual(
            try policy.requestURL(for: "https://other.test/x", kind: .style), "https://other.test/x")
        XCTAssertEqual(try URLRewrite(argument: "a=b=c"), URLRewrite(from: "a", to: "b=c"))
        XCTAssertThrowsError(try URLRewrite(argument: "=x"))
        XCTAssertThrowsError(try URLRewrite(argument: "no-equals"))
        let toFile = URLPolicy(rewrites: [URLRewrite(from: "https://t.test/", to: "file:///srv/")])
        XCTAssertThrowsError(try toFile.requestURL(for: "https://t.test/a.pbf", kind: .tile)) {
            XCTAssertEqual(
                $0 as? DownloadError, .unsupportedScheme(url: "file:///srv/a.pbf", field: "request"))
        }
    }

    func testAllowHost() throws {
        let policy = URLPolicy(accessToken: "pk.T", allowedHosts: ["127.0.0.1:8181", "Tiles.Example.com"])
        XCTAssertNoThrow(try policy.checkContact("http://127.0.0.1:8181/a"))
        XCTAssertNoThrow(try policy.checkContact("https://user@TILES.example.com:8443/a"))
        XCTAssertThrowsError(try policy.checkContact("http://127.0.0.1:9999/a")) {
            XCTAssertEqual(
                $0 as? DownloadError, .hostNotAllowed(host: "127.0.0.1", url: "http://127.0.0.1:9999/a"))
        }
        XCTAssertThrowsError(try policy.requestURL(for: "mapbox://styles/a/b", kind: .style)) {
            XCTAssertEqual(
                $0 as? DownloadError,
                .hostNotAllowed(
                    host: "api.mapbox.com", url: "https://api.mapbox.com/styles/v1/a/b?access_token=pk.T"))
            XCTAssertTrue("\($0)".contains("api.mapbox.com"))
        }
        XCTAssertNoThrow(try URLPolicy(allowedHosts: ["::1"]).checkContact("http://[::1]:80/x"))
        XCTAssertThrowsError(try URLPolicy().checkContact("file:///etc/passwd"))
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
