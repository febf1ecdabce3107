import Basics
import Foundation
import XCTest

@testable import PackStore

final class RegionFileTests: XCTestCase {
    let style = "\"style\": \"http://127.0.0.1:8181/styles/bright.json\""
    let helsinki = "\"bounds\": [24.93, 60.16, 24.96, 60.18]"

    func parse(_ text: String) throws -> RegionFile { try RegionFile.parse(Data(text.utf8)) }

    /// Asserts that `text` is refused with an error naming `field` (and mentioning `reason`).
    func assertRejected(
        _ text: String, field: String, reason: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try parse(text), text, file: file, line: line) { error in
            guard case StoreError.invalidDefinition(let named, let why) = error else {
                return XCTFail("not invalidDefinition: \(error)", file: file, line: line)
            }
            XCTAssertEqual(named, field, "reason: \(why)", file: file, line: line)
            if let reason {
                XCTAssertTrue(why.contains(reason), "\"\(why)\" lacks \"\(reason)\"", file: file, line: line)
            }
        }
    }

    // MARK: acceptance

    func testDesignExample() throws {
        let region = try parse("""
            { \(style), \(helsinki), "minzoom": 0, "maxzoom": 14, "pixel_ratio": 1,
              "include_ideographs": false, "metadata": { "trip": "Helsinki weekend" } }
            """)
        let expected = RegionDefinition(
            styleURL: "http://127.0.0.1:8181/styles/bright.json",
            area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)),
            minZoom: 0, maxZoom: 14, pixelRatio: 1, includeIdeographs: false)
        XCTAssertEqual(region.definition, expected)
        XCTAssertEqual(region.metadata, .object(["trip": .string("Helsinki weekend")]))
    }

    func testDefaults() throws {
        let region = try parse("{ \(style), \(helsinki) }")
        XCTAssertEqual(region.definition.minZoom, 0)
        XCTAssertNil(region.definition.maxZoom)
        XCTAssertEqual(region.definition.pixelRatio, 1)
        XCTAssertFalse(region.definition.includeIdeographs)
        XCTAssertNil(region.metadata)
        XCTAssertNil(try parse("{ \(style), \(helsinki), \"maxzoom\": null, \"metadata\": null }").definition.maxZoom)
    }

    func testOtherValues() throws {
        let region = try parse("""
            { \(style), \(helsinki), "minzoom": 2.5, "maxzoom": 24, "pixel_ratio": 2,
              "include_ideographs": true, "metadata": [1, "two"] }
            """)
        XCTAssertEqual(region.definition.minZoom, 2.5)
        XCTAssertEqual(region.definition.maxZoom, 24)
        XCTAssertEqual(region.definition.pixelRatio, 2)
        XCTAssertTrue(region.definition.includeIdeographs)
        XCTAssertEqual(region.metadata, .array([.number(1), .string("two")]))
    }

    func testStyleSchemes() throws {
        for url in ["https://example.com/s.json", "HTTP://example.com/s.json", "mapbox://styles/mapbox/streets-v12"] {
            XCTAssertEqual(try parse("{ \"style\": \"\(url)\", \(helsinki) }").definition.styleURL, url)
        }
    }

    func testBoundsTouchingTheWorldEdges() throws {
        let region = try parse("{ \(style), \"bounds\": [-180, -90, 180, 90] }")
        XCTAssertEqual(region.definition.area, .bounds(Bounds(west: -180, south: -90, east: 180, north: 90)))
        // A point-sized box is a valid (if small) region.
        XCTAssertNoThrow(try parse("{ \(style), \"bounds\": [180, 0, 180, 0] }"))
    }

    func testGeometryObject() throws {
        let region = try parse("""
            { \(style), "geometry": { "type": "LineString", "coordinates": [[24.9, 60.1], [25.0, 60.2]] } }
            """)
        XCTAssertEqual(region.definition.area, .geometry(.lineString([pos(24.9, 60.1), pos(25.0, 60.2)])))
    }

    func testFeature() throws {
        let region = try parse("""
            { \(style), "geometry": { "type": "Feature", "properties": { "name": "x" },
              "geometry": { "type": "Point", "coordinates": [24.95, 60.17] } } }
            """)
        XCTAssertEqual(region.definition.area, .geometry(.point(pos(24.95, 60.17))))
    }

    func testFeatureCollectionOfOneDimensionMergesToMulti() throws {
        let region = try parse("""
            { \(style), "geometry": { "type": "FeatureCollection", "features": [
              \(feature(triangle(0))), \(feature(triangle(10))) ] } }
            """)
        XCTAssertEqual(region.definition.area, .geometry(.multiPolygon([triangleRings(0), triangleRings(10)])))
    }

    func testFeatureCollectionOfOneFeature() throws {
        let region = try parse("""
            { \(style), "geometry": { "type": "FeatureCollection", "features": [ \(feature(triangle(0))) ] } }
            """)
        XCTAssertEqual(region.definition.area, .geometry(.polygon(triangleRings(0))))
    }

    func testMixedFeatureCollectionIsAGeometryCollection() throws {
        let point = "{ \"type\": \"Point\", \"coordinates\": [1, 2] }"
        let region = try parse("""
            { \(style), "geometry": { "type": "FeatureCollection", "features": [
              \(feature(triangle(0))), \(feature(point)) ] } }
            """)
        XCTAssertEqual(region.definition.area, .geometry(.collection([.polygon(triangleRings(0)), .point(pos(1, 2))])))
    }

    func testMapLibreKeyNamesUseMapLibreBoundsOrder() throws {
        let region = try parse("""
            { "style_url": "mapbox://styles/a/b", "min_zoom": 3.0, "max_zoom": 12.0, "pixel_ratio": 2.0,
              "include_ideographs": true, "bounds": [60.16, 24.93, 60.18, 24.96] }
            """)
        let expected = RegionDefinition(
            styleURL: "mapbox://styles/a/b",
            area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)),
            minZoom: 3, maxZoom: 12, pixelRatio: 2, includeIdeographs: true)
        XCTAssertEqual(region.definition, expected)
    }

    func testTileStorageInBothSpellingsDefaultsToCompressed() throws {
        XCTAssertEqual(try parse("{ \(style), \(helsinki) }").tileStorage, .compressed)
        XCTAssertEqual(try parse("{ \(style), \(helsinki), \"tile_storage\": null }").tileStorage, .compressed)
        XCTAssertEqual(try parse("{ \(style), \(helsinki), \"tile_storage\": \"compressed\" }").tileStorage, .compressed)
        XCTAssertEqual(try parse("{ \(style), \(helsinki), \"tile_storage\": \"inflated\" }").tileStorage, .inflated)
        let mapLibre = try parse("""
            { "style_url": "http://a/s", "bounds": [60.16, 24.93, 60.18, 24.96], "tile_storage": "inflated" }
            """)
        XCTAssertEqual(mapLibre.tileStorage, .inflated)
    }

    func testMapLibreJSONParsesBack() throws {
        let definitions = [
            RegionDefinition(
                styleURL: "https://a.example/style.json",
                area: .bounds(Bounds(west: -10.5, south: -20, east: 30, north: 40.25)), minZoom: 1, maxZoom: nil),
            RegionDefinition(
                styleURL: "https://a.example/style.json", area: .geometry(.polygon(triangleRings(5))), minZoom: 0,
                maxZoom: 16, pixelRatio: 3, includeIdeographs: true),
        ]
        for definition in definitions {
            XCTAssertEqual(try parse(definition.mapLibreJSON).definition, definition)
        }
    }

    func testLongMantissasParseExactly() throws {
        // Foundation on Linux hands these to JSONValue as NSDecimalNumber.
        let region = try parse("{ \(style), \"bounds\": [24.938964843750004, 60.180000000000001, 179.99999999999997, 60.2] }")
        let expected = Bounds(
            west: Double("24.938964843750004")!, south: Double("60.180000000000001")!,
            east: Double("179.99999999999997")!, north: 60.2)
        XCTAssertEqual(region.definition.area, .bounds(expected))
    }

    func testGeometryCollectionIsKeptAsWritten() throws {
        let text = "{ \"type\": \"GeometryCollection\", \"geometries\": [\(triangle(0))] }"
        let region = try parse("{ \(style), \"geometry\": \(text) }")
        XCTAssertEqual(region.definition.area, .geometry(.collection([.polygon(triangleRings(0))])))
    }

    // MARK: encoded()

    func testEncodedRoundTrips() throws {
        let files = [
            try parse("{ \(style), \(helsinki), \"maxzoom\": 14, \"metadata\": { \"trip\": \"a\\\"b\", \"n\": 3 } }"),
            try parse("{ \(style), \"geometry\": \(triangle(0)), \"minzoom\": 0.5, \"pixel_ratio\": 1.5 }"),
            try parse("{ \(style), \"bounds\": [-180, -90, 180, 90], \"include_ideographs\": true }"),
            try parse("{ \(style), \"bounds\": [24.938964843750004, 60.180000000000001, 179.99999999999997, 60.2] }"),
            try parse("{ \(style), \(helsinki), \"tile_storage\": \"inflated\", \"metadata\": 1 }"),
            RegionFile(definition: RegionDefinition(
                styleURL: "mapbox://styles/x/y", area: .geometry(.collection([.point(pos(0.1, 0.2))])),
                minZoom: 0, maxZoom: 0.1 + 0.2)),
        ]
        for file in files {
            let text = file.encoded()
            XCTAssertEqual(try parse(text), file, text)
        }
    }

    func testEncodedUsesPackFSKeysOneLineEach() throws {
        let text = try parse("""
            { "style_url": "https://a.example/s.json", "min_zoom": 2, "bounds": [60.16, 24.93, 60.18, 24.96] }
            """).encoded()
        XCTAssertEqual(text, """
            {
              "style": "https://a.example/s.json",
              "bounds": [24.93, 60.16, 24.96, 60.18],
              "minzoom": 2,
              "pixel_ratio": 1,
              "include_ideographs": false
            }

            """)
    }

    // MARK: rejections, each naming its field

    func testRejectsNonJSONAndNonObjects() {
        assertRejected("{ \"style\": ", field: "region file", reason: "not valid JSON")
        assertRejected("", field: "region file", reason: "not valid JSON")
        assertRejected("[1, 2]", field: "region file", reason: "not a JSON object")
        assertRejected("\"style\"", field: "region file", reason: "not a JSON object")
    }

    func testRejectsMissingOrMistypedStyle() {
        assertRejected("{ \(helsinki) }", field: "style", reason: "missing")
        assertRejected("{ \"style\": null, \(helsinki) }", field: "style", reason: "missing")
        assertRejected("{ \"style\": 3, \(helsinki) }", field: "style", reason: "not a number")
    }

    func testRejectsStyleSchemesOtherThanHTTPAndMapbox() {
        for url in ["file:///etc/passwd", "/tmp/style.json", "styles/bright.json", "ftp://host/s.json",
                    "data:application/json,{}", "", "httpx://host/s.json"] {
            assertRejected("{ \"style\": \"\(url)\", \(helsinki) }", field: "style", reason: "http, https, mapbox")
        }
        assertRejected("{ \"style\": \"http:/s.json\", \(helsinki) }", field: "style", reason: "no host")
        assertRejected("{ \"style\": \"https://\", \(helsinki) }", field: "style", reason: "no host")
        assertRejected("{ \"style_url\": \"file:///s.json\", \"bounds\": [0, 0, 1, 1] }", field: "style_url")
    }

    func testRejectsMalformedBounds() {
        for bounds in ["[1, 2, 3]", "[1, 2, 3, 4, 5]", "[1, \"2\", 3, 4]", "\"1,2,3,4\"", "{}", "[]"] {
            assertRejected("{ \(style), \"bounds\": \(bounds) }", field: "bounds", reason: "4 numbers")
        }
    }

    func testRejectsBoundsOutOfRangeOrInverted() {
        let cases = [("[-181, 0, 1, 1]", "-180..180"), ("[0, 0, 180.5, 1]", "-180..180"), ("[0, -91, 1, 1]", "-90..90"),
                     ("[0, 0, 1, 90.1]", "-90..90"), ("[10, 0, 9, 1]", "west"), ("[170, 0, -170, 1]", "antimeridian"),
                     ("[0, 5, 1, 4]", "south")]
        for (bounds, reason) in cases {
            assertRejected("{ \(style), \"bounds\": \(bounds) }", field: "bounds", reason: reason)
        }
        // MapLibre's order is [south, west, north, east]: this box has south 5 > north 4.
        assertRejected("{ \"style_url\": \"http://a/s\", \"bounds\": [5, 0, 4, 1] }", field: "bounds", reason: "south")
    }

    func testRejectsBothOrNeitherArea() {
        assertRejected("{ \(style) }", field: "bounds", reason: "bounds or geometry")
        assertRejected("{ \(style), \(helsinki), \"geometry\": \(triangle(0)) }", field: "bounds", reason: "both")
    }

    func testRejectsEmptyOrInvalidGeometry() {
        let cases: [(geometry: String, field: String)] = [
            ("[1, 2]", "geometry"),
            ("{ \"type\": \"Polygon\", \"coordinates\": [] }", "geometry.coordinates"),
            ("{ \"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[1,1],[0,1]]] }", "geometry.coordinates[0]"),
            ("{ \"type\": \"LineString\", \"coordinates\": [[0,0]] }", "geometry.coordinates"),
            ("{ \"type\": \"Point\", \"coordinates\": [200, 0] }", "geometry.coordinates"),
            ("{ \"type\": \"Circle\", \"coordinates\": [0, 0] }", "geometry.type"),
            ("{ \"coordinates\": [0, 0] }", "geometry"),
            ("{ \"type\": \"GeometryCollection\", \"geometries\": [] }", "geometry.geometries"),
            ("{ \"type\": \"Feature\", \"geometry\": null }", "geometry.geometry"),
            ("{ \"type\": \"FeatureCollection\", \"features\": [] }", "geometry.features"),
            ("{ \"type\": \"FeatureCollection\" }", "geometry.features"),
            ("{ \"type\": \"FeatureCollection\", \"features\": [\(feature(triangle(0))), \(triangle(1))] }",
             "geometry.features[1].type"),
            ("{ \"type\": \"FeatureCollection\", \"features\": [\(feature("{ \"type\": \"Point\" }"))] }",
             "geometry.features[0].geometry.coordinates"),
        ]
        for (geometry, field) in cases {
            assertRejected("{ \(style), \"geometry\": \(geometry) }", field: field)
        }
    }

    func testRejectsZoomsOutOfRangeOrInverted() {
        assertRejected("{ \(style), \(helsinki), \"minzoom\": 10, \"maxzoom\": 9 }", field: "minzoom", reason: "above")
        assertRejected("{ \(style), \(helsinki), \"minzoom\": -1 }", field: "minzoom", reason: "0-24")
        assertRejected("{ \(style), \(helsinki), \"minzoom\": 25 }", field: "minzoom", reason: "0-24")
        assertRejected("{ \(style), \(helsinki), \"maxzoom\": 24.5 }", field: "maxzoom", reason: "0-24")
        assertRejected("{ \"style_url\": \"http://a/s\", \"bounds\": [0, 0, 1, 1], \"min_zoom\": 5, \"max_zoom\": 4 }",
                       field: "min_zoom")
    }

    func testRejectsNonPositivePixelRatio() {
        assertRejected("{ \(style), \(helsinki), \"pixel_ratio\": 0 }", field: "pixel_ratio", reason: "not positive")
        assertRejected("{ \(style), \(helsinki), \"pixel_ratio\": -2 }", field: "pixel_ratio", reason: "not positive")
    }

    func testRejectsWrongTypes() {
        assertRejected("{ \(style), \(helsinki), \"minzoom\": \"3\" }", field: "minzoom", reason: "not a string")
        assertRejected("{ \(style), \(helsinki), \"maxzoom\": true }", field: "maxzoom", reason: "not a boolean")
        assertRejected("{ \(style), \(helsinki), \"pixel_ratio\": [2] }", field: "pixel_ratio", reason: "not an array")
        assertRejected("{ \(style), \(helsinki), \"include_ideographs\": 1 }", field: "include_ideographs",
                       reason: "not a number")
        assertRejected("{ \(style), \(helsinki), \"include_ideographs\": \"yes\" }", field: "include_ideographs")
    }

    func testRejectsTileStorageOtherThanCompressedOrInflated() {
        let choices = "must be \"compressed\" or \"inflated\""
        assertRejected("{ \(style), \(helsinki), \"tile_storage\": \"raw\" }", field: "tile_storage",
                       reason: choices + ", not \"raw\"")
        assertRejected("{ \(style), \(helsinki), \"tile_storage\": \"Inflated\" }", field: "tile_storage")
        assertRejected("{ \(style), \(helsinki), \"tile_storage\": true }", field: "tile_storage",
                       reason: choices + ", not a boolean")
        assertRejected("{ \"style_url\": \"http://a/s\", \"bounds\": [0, 0, 1, 1], \"tile_storage\": 0 }",
                       field: "tile_storage", reason: "not a number")
    }

    func testRejectsUnknownKeysAndMixedSpellings() {
        // A misspelt maxzoom would otherwise mean "every zoom".
        assertRejected("{ \(style), \(helsinki), \"max_zoom\": 10 }", field: "max_zoom", reason: "unknown key")
        assertRejected("{ \(style), \(helsinki), \"name\": \"x\" }", field: "name", reason: "unknown key")
        assertRejected("{ \"style_url\": \"http://a/s\", \(style), \"bounds\": [0, 0, 1, 1] }", field: "style")
        assertRejected("{ \"style_url\": \"http://a/s\", \"bounds\": [0, 0, 1, 1], \"minzoom\": 1 }", field: "minzoom",
                       reason: "unknown key")
    }

    // MARK: helpers

    func pos(_ lon: Double, _ lat: Double) -> Position { Position(longitude: lon, latitude: lat) }

    func triangle(_ at: Double) -> String {
        let a = Int(at), b = Int(at) + 1
        return "{ \"type\": \"Polygon\", \"coordinates\": [[[\(a),\(a)],[\(b),\(a)],[\(b),\(b)],[\(a),\(a)]]] }"
    }

    func triangleRings(_ at: Double) -> [[Position]] {
        [[pos(at, at), pos(at + 1, at), pos(at + 1, at + 1), pos(at, at)]]
    }

    func feature(_ geometry: String) -> String {
        "{ \"type\": \"Feature\", \"properties\": {}, \"geometry\": \(geometry) }"
    }
}
