import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

@testable import StyleModel

/// Reading a style (docs/design.md §4): what it needs, in order, by MapLibre's rules.
final class StyleTests: XCTestCase {
    static let base = "http://127.0.0.1:8181"
    static let styleURL = base + "/styles/bright.json"

    /// A fixture file with `{base}` set to the test server's address.
    private func fixture(_ path: String) throws -> Data {
        let text = try String(contentsOf: ProjectPaths.world.appendingPathComponent(path), encoding: .utf8)
        return Data(text.replacingOccurrences(of: "{base}", with: Self.base).utf8)
    }

    private func plan(_ style: String, url: String = "http://h.test/styles/s.json") throws -> Style {
        try Style(data: Data(style.utf8), url: url)
    }

    private func urls(_ style: Style, _ kind: ResourceKind, ideographs: Bool = false) -> [String] {
        style.resources(includeIdeographs: ideographs).filter { $0.kind == kind }.map(\.url)
    }

    // MARK: - The fixture style

    func testFixtureStyleResources() throws {
        let plan = try Style(data: fixture("styles/bright.json"), url: Self.styleURL)
        XCTAssertEqual(urls(plan, .source), [Self.base + "/tiles/helsinki.json"])
        XCTAssertEqual(
            plan.resources(includeIdeographs: false).filter { $0.kind == .spriteJSON || $0.kind == .spriteImage }
                .map(\.url),
            ["json", "png", "@2x.json", "@2x.png"].map {
                Self.base + "/sprites/bright" + ($0.hasPrefix("@") ? $0 : "." + $0)
            })
        XCTAssertEqual(plan.fontStacks, [["Noto Sans Bold"], ["Noto Sans Italic"], ["Noto Sans Regular"]])
        let glyphs = urls(plan, .glyphs)
        XCTAssertEqual(glyphs.count, 291)
        XCTAssertEqual(glyphs.first, Self.base + "/fonts/Noto%20Sans%20Bold/0-255.pbf")
        XCTAssertEqual(glyphs.last, Self.base + "/fonts/Noto%20Sans%20Regular/65280-65535.pbf")
        let resources = plan.resources(includeIdeographs: false)
        XCTAssertEqual(resources.count, 1 + 4 + 291)
        XCTAssertEqual(resources.map(\.kind).first, .source)  // sources, then sprites, then glyphs
        XCTAssertEqual(resources[1].kind, .spriteJSON)
        // Every glyph URL names a file the fixture server has.
        for url in glyphs {
            let path = String(url.dropFirst((Self.base + "/").count)).removingPercentEncoding!
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: ProjectPaths.world.appendingPathComponent(path).path),
                path)
        }
    }

    func testFixtureTileSourcesAndZooms() throws {
        let plan = try Style(data: fixture("styles/bright.json"), url: Self.styleURL)
        XCTAssertEqual(plan.tileSources.map(\.id), ["openmaptiles", "land", "relief"])
        XCTAssertEqual(plan.tileSources.map(\.url), [Self.base + "/tiles/helsinki.json", nil, nil])

        let omt = try plan.tileSources[0].tileSource(tileJSON: fixture("tiles/helsinki.json"))
        XCTAssertEqual(omt.urlTemplate, Self.base + "/tiles/helsinki/{z}/{x}/{y}.pbf")
        XCTAssertEqual(omt.type, .vector)
        XCTAssertEqual(omt.maxZoom, 14)
        XCTAssertEqual(
            omt.bounds, Bounds(west: 24.9351766, south: 60.1641551, east: 24.9534132, north: 60.1791074))
        XCTAssertEqual(omt.attribution, "\u{a9} OpenStreetMap contributors")
        XCTAssertFalse(omt.isMapbox)
        XCTAssertEqual(omt.coveringZooms(minZoom: 0, maxZoom: 14), 0...14)
        XCTAssertEqual(omt.coveringZooms(minZoom: 0, maxZoom: nil), 0...14)

        let land = try plan.tileSources[1].tileSource()
        XCTAssertEqual(land.urlTemplate, Self.base + "/tiles/land/{z}/{x}/{y}.pbf")
        XCTAssertEqual(land.coveringZooms(minZoom: 0, maxZoom: 14), 0...4)

        let relief = try plan.tileSources[2].tileSource()
        XCTAssertEqual(relief.type, .raster)
        XCTAssertEqual(relief.tileSize, 256)
        XCTAssertEqual(relief.coveringZooms(minZoom: 0, maxZoom: 14), 1...1)
    }

    func testIdeographsIncludedGiveAllRanges() throws {
        let plan = try Style(data: fixture("styles/bright.json"), url: Self.styleURL)
        XCTAssertEqual(urls(plan, .glyphs, ideographs: true).count, 3 * 256)
    }

    // MARK: - Glyphs and font stacks

    func testGlyphRanges() {
        let ranges = GlyphTemplate.ranges(includeIdeographs: false)
        XCTAssertEqual(ranges.count, 97)
        XCTAssertEqual(GlyphTemplate.ranges(includeIdeographs: true).count, 256)
        for skipped in [0x1100, 0x3000, 0x3200, 0x4C00, 0x4E00, 0xA300, 0xAC00, 0xD600, 0xF900] {
            XCTAssertFalse(ranges.contains { $0.lowerBound == skipped }, String(skipped, radix: 16))
        }
        for kept in [0x0000, 0x1000, 0x1200, 0x3100, 0x4D00, 0xA400, 0xD700, 0xF800, 0xFA00, 0xFF00] {
            XCTAssertTrue(ranges.contains(kept...(kept + 255)), String(kept, radix: 16))
        }
    }

    func testFontStackPercentEncoding() throws {
        let style = """
            {"version":8,"glyphs":"https://g.test/fonts/{fontstack}/{range}.pbf?key=k&v={v}","sources":{},
             "layers":[{"id":"a","type":"symbol","layout":{"text-field":"x",
               "text-font":["Noto Sans Regular","Arial Unicode MS Regular"]}},
               {"id":"b","type":"symbol","layout":{"text-field":"x","text-font":["Sans (Ünï)_-.~/+"]}}]}
            """
        let glyphs = urls(try plan(style), .glyphs)
        XCTAssertEqual(glyphs.count, 2 * 97)
        XCTAssertTrue(
            glyphs.contains(
                "https://g.test/fonts/Noto%20Sans%20Regular%2cArial%20Unicode%20MS%20Regular/0-255.pbf?key=k&v={v}"
            ))
        XCTAssertTrue(
            glyphs.contains(
                "https://g.test/fonts/Sans%20%28%c3%9cn%c3%af%29_-.~%2f%2b/256-511.pbf?key=k&v={v}"))
    }

    func testFontStacksFromExpressionsAndFunctions() throws {
        let layers = [
            #"{"text-field":"x","text-font":["step",["zoom"],["literal",["A"]],10,["literal",["B","C"]]]}"#,
            #"{"text-field":"x","text-font":["match",["get","k"],["a","b"],["literal",["D"]],"c",["literal",["E"]],["literal",["F"]]]}"#,
            #"{"text-field":"x","text-font":["case",["has","k"],["literal",["G"]],["literal",["H"]]]}"#,
            #"{"text-field":"x","text-font":["coalesce",["literal",["I"]],["let","v",1,["literal",["J"]]]]}"#,
            #"{"text-field":"x","text-font":{"stops":[[0,["K"]],[12,["L","M"]]]}}"#,
            #"{"text-field":"x","text-font":{"type":"categorical","property":"p","stops":[["a",["N"]]],"default":["O"]}}"#,
            // MapLibre stops at the first output that is not a literal: P counts, Q does not.
            #"{"text-field":"x","text-font":["coalesce",["literal",["P"]],["get","font"],["literal",["Q"]]]}"#,
            #"{"text-field":"x","text-font":["get","font"]}"#,
            #"{"text-field":"x"}"#,  // MapLibre's default stack
            #"{"text-font":["No text field"]}"#,
        ]
        let style =
            #"{"version":8,"sources":{},"glyphs":"https://g.test/{fontstack}/{range}","layers":["#
            + layers.enumerated().map { #"{"id":"l\#($0)","type":"symbol","layout":\#($1)}"# }.joined(
                separator: ",")
            + #",{"id":"fill","type":"fill","layout":{"text-field":"x","text-font":["Fill"]}}]}"#
        let plan = try plan(style)
        XCTAssertEqual(
            plan.fontStacks,
            [
                ["A"], ["B", "C"], ["D"], ["E"], ["F"], ["G"], ["H"], ["I"],
                ["J"], ["K"], ["L", "M"], ["N"], ["O"], ["Open Sans Regular", "Arial Unicode MS Regular"],
                ["P"],
            ])
        XCTAssertEqual(urls(plan, .glyphs).count, 15 * 97)
    }

    func testNoGlyphsTemplateMeansNoGlyphs() throws {
        let style =
            #"{"version":8,"sources":{},"layers":[{"id":"a","type":"symbol","layout":{"text-field":"x"}}]}"#
        let plan = try plan(style)
        XCTAssertEqual(plan.fontStacks.count, 1)
        XCTAssertTrue(plan.resources(includeIdeographs: false).isEmpty)
    }

    // MARK: - Sources and sprites

    func testSourcesKeepStyleOrder() throws {
        let style = """
            {"version":8,"sources":{
              "zeta":{"type":"vector","url":"https://t.test/zeta.json"},
              "alpha":{"type":"geojson","data":"../data/points.geojson"},
              "inline":{"type":"geojson","data":{"type":"FeatureCollection","features":[]}},
              "m\\u00fcnchen \\"x\\"":{"type":"raster","tiles":["https://r.test/{z}/{x}/{y}.png"]},
              "video":{"type":"video","urls":["https://v.test/a.mp4"],"coordinates":[[0,0],[1,0],[1,1],[0,1]]},
              "beta":{"type":"image","url":"/img/overlay.png","coordinates":[[0,0],[1,0],[1,1],[0,1]]},
              "dem":{"type":"raster-dem","url":"mapbox://mapbox.terrain-rgb","tileSize":256}
            },"layers":[]}
            """
        let plan = try plan(style)
        XCTAssertEqual(
            plan.resources(includeIdeographs: false),
            [
                StyleResource(url: "https://t.test/zeta.json", kind: .source),
                StyleResource(url: "http://h.test/data/points.geojson", kind: .source, content: .geoJSON),
                StyleResource(url: "http://h.test/img/overlay.png", kind: .image),
                StyleResource(url: "mapbox://mapbox.terrain-rgb", kind: .source),
            ])
        XCTAssertEqual(plan.tileSources.map(\.id), ["zeta", "m\u{fc}nchen \"x\"", "dem"])
        XCTAssertEqual(plan.tileSources.map(\.tileType), [.vector, .raster, .rasterDEM])
        // Every source with something to store, in style order: its directory and file in a pack.
        XCTAssertEqual(plan.sources.map(\.id), ["zeta", "alpha", "m\u{fc}nchen \"x\"", "beta", "dem"])
        XCTAssertEqual(plan.sources.map(\.dataFileName), [nil, "data.geojson", nil, "image.png", nil])
    }

    func testArraySpritesWithQueries() throws {
        let style = """
            {"version":8,"sources":{},"layers":[],"sprite":[
              {"id":"roadsigns","url":"https://s.test/sprites/roadsigns?key=abc#frag"},
              {"id":"default","url":"../sprites/base"}]}
            """
        let plan = try plan(style)
        XCTAssertEqual(plan.sprites.map(\.id), ["roadsigns", "default"])
        XCTAssertEqual(
            plan.resources(includeIdeographs: false).map(\.url),
            [
                "https://s.test/sprites/roadsigns.json?key=abc",
                "https://s.test/sprites/roadsigns.png?key=abc",
                "https://s.test/sprites/roadsigns@2x.json?key=abc",
                "https://s.test/sprites/roadsigns@2x.png?key=abc",
                "http://h.test/sprites/base.json", "http://h.test/sprites/base.png",
                "http://h.test/sprites/base@2x.json", "http://h.test/sprites/base@2x.png",
            ])
        XCTAssertEqual(
            plan.resources(includeIdeographs: false).map(\.kind),
            Array(repeating: [.spriteJSON, .spriteImage], count: 4).flatMap { $0 })
        XCTAssertEqual(
            plan.sprites[0].files.map(\.name), ["roadsigns.json", "roadsigns.png", "roadsigns@2x.json", "roadsigns@2x.png"])
        XCTAssertThrowsError(try self.plan(#"{"sources":{},"sprite":[{"id":"a"}]}"#))
    }

    func testRelativeURLsResolveAgainstTheirDocument() throws {
        let style = """
            {"version":8,"sources":{"a":{"type":"vector","url":"../tiles/a.json"},
              "b":{"type":"vector","tiles":["tiles/b/{z}/{x}/{y}.pbf"]},
              "c":{"type":"vector","url":"//cdn.test/c.json"}},
             "glyphs":"/fonts/{fontstack}/{range}.pbf","sprite":"./sprite","layers":[]}
            """
        let plan = try plan(style, url: "https://h.test/styles/v1/s.json?token=1")
        XCTAssertEqual(
            urls(plan, .source), ["https://h.test/styles/tiles/a.json", "https://cdn.test/c.json"])
        XCTAssertEqual(
            try plan.tileSources[1].tileSource().urlTemplate,
            "https://h.test/styles/v1/tiles/b/{z}/{x}/{y}.pbf")
        XCTAssertEqual(urls(plan, .spriteJSON).first, "https://h.test/styles/v1/sprite.json")
        let tileJSON = Data(#"{"tilejson":"3.0.0","tiles":["../{z}/{x}/{y}.mvt"]}"#.utf8)
        XCTAssertEqual(
            try plan.tileSources[0].tileSource(tileJSON: tileJSON).urlTemplate,
            "https://h.test/styles/{z}/{x}/{y}.mvt")
    }

    func testFileURLsAndPlainPathsAreRefused() {
        let cases = [
            (
                #"{"sources":{"a":{"type":"vector","url":"file:///etc/tiles.json"}}}"#,
                "file:///etc/tiles.json"
            ),
            (
                #"{"sources":{"a":{"type":"raster","tiles":["FILE:///srv/{z}/{x}/{y}.png"]}}}"#,
                "FILE:///srv/{z}/{x}/{y}.png"
            ),
            (#"{"sources":{},"sprite":"file:///home/me/sprite"}"#, "file:///home/me/sprite"),
            (
                #"{"sources":{},"glyphs":"asset://fonts/{fontstack}/{range}.pbf"}"#,
                "asset://fonts/{fontstack}/{range}.pbf"
            ),
            (
                #"{"sources":{"g":{"type":"geojson","data":"file:///tmp/x.geojson"}}}"#,
                "file:///tmp/x.geojson"
            ),
        ]
        for (style, url) in cases {
            XCTAssertThrowsError(try plan(style)) { error in
                guard case StyleError.unsupportedScheme(let named, _) = error else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(named, url)
                XCTAssertTrue("\(error)".contains(url))
            }
        }
        // A plain path with no http(s) document to resolve it against.
        XCTAssertThrowsError(
            try plan(#"{"sources":{},"sprite":"/usr/share/sprite"}"#, url: "mapbox://styles/me/s")
        ) {
            guard case StyleError.unresolvableReference(let reference, _, _) = $0 else {
                return XCTFail("\($0)")
            }
            XCTAssertEqual(reference, "/usr/share/sprite")
        }
    }

    func testBrokenStylesNameTheProblem() {
        let broken: [(String, String)] = [
            ("{\"sources\":", "not valid JSON"),
            ("[1,2]", "not a JSON object"),
            (#"{"sources":[]}"#, "sources"),
            (#"{"sources":{"a":{"url":"https://t/a.json"}}}"#, "sources.a.type"),
            (#"{"sources":{"a":{"type":"vector"}}}"#, "sources.a.tiles"),
            (
                #"{"sources":{"a":{"type":"raster","tiles":["https://t/{z}"],"tileSize":0}}}"#,
                "sources.a.tileSize"
            ),
            (#"{"sources":{"a":{"type":"vector","tiles":"https://t/{z}"}}}"#, "sources.a.tiles"),
            (
                #"{"sources":{"a":{"type":"vector","tiles":["https://t/{z}"],"maxzoom":-1}}}"#,
                "sources.a.maxzoom"
            ),
            (#"{"sources":{"a":{"type":"image"}}}"#, "sources.a.url"),
        ]
        for (style, needle) in broken {
            XCTAssertThrowsError(try plan(style)) { error in
                XCTAssertTrue("\(error)".contains(needle), "\(error)")
                XCTAssertTrue("\(error)".contains("http://h.test/styles/s.json"), "\(error)")
            }
        }
    }

    func testParserKeepsSourceOrder() throws {
        let text = #"{"a":{"z":1},"sources":{"b\"}":[{"x":"]"}],"\u00e9":null,"a":{"k":{}},"b\"}":2},"z":0}"#
        XCTAssertEqual(try JSONValue.parsing(Data(text.utf8), keepingOrderOf: "sources").order, ["b\"}", "\u{e9}", "a"])
        XCTAssertNil(try JSONValue.parsing(Data(text.utf8), keepingOrderOf: "missing").order)
    }
}
