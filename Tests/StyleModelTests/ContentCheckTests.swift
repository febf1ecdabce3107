import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

@testable import StyleModel

/// The content check of every kind on the fixture world's real bytes (they pass) and on the
/// wrong bytes a server might send instead (they fail, saying what came).
final class ContentCheckTests: XCTestCase {
    func world(_ path: String) throws -> Data { try Data(contentsOf: ProjectPaths.world.appendingPathComponent(path)) }

    func files(under path: String, ending suffix: String) throws -> [Data] {
        let root = ProjectPaths.world.appendingPathComponent(path)
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(suffix) }.sorted().map { try Data(contentsOf: root.appendingPathComponent($0)) }
    }

    func mismatch(_ text: String, _ kind: ContentKind) -> String? { ContentCheck.mismatch(Data(text.utf8), expected: kind) }

    let html = "<!DOCTYPE html>\n<html><body>Internal admin console</body></html>"

    func testStylesPassAndAnHTMLPageOrATileJSONDoesNot() throws {
        for name in ["bright.json", "variety.json", "bright-pmtiles.json"] {
            XCTAssertNil(ContentCheck.mismatch(try world("styles/" + name), expected: .style), name)
        }
        XCTAssertEqual(mismatch(html, .style), #"HTML text "<!DOCTYPE html>\n<html><body>Internal adm...""#)
        XCTAssertEqual(
            ContentCheck.mismatch(try world("tiles/helsinki.json"), expected: .style),
            #"a TileJSON without "version": 8, "sources", "layers""#)
    }

    func testTileJSONNeedsATilesArray() throws {
        XCTAssertNil(ContentCheck.mismatch(try world("tiles/helsinki.json"), expected: .tileJSON))
        XCTAssertEqual(mismatch(#"{"name": "x", "tiles": "a"}"#, .tileJSON), #"a JSON object without a "tiles" array"#)
        XCTAssertEqual(mismatch("[]", .tileJSON), #"JSON text "[]""#)
    }

    func testGeoJSONMustHaveAGeoJSONType() throws {
        XCTAssertNil(ContentCheck.mismatch(try world("data/trails.geojson"), expected: .geoJSON))
        XCTAssertNil(mismatch(#"{"type": "Point", "coordinates": [1, 2]}"#, .geoJSON))
        XCTAssertEqual(mismatch(#"{"type": "Topology"}"#, .geoJSON), #"a JSON object whose "type" is "Topology""#)
        XCTAssertEqual(ContentCheck.mismatch(try world("styles/bright.json"), expected: .geoJSON), #"a JSON object without a "type""#)
    }

    func testSpriteIndexEntriesNeedNumericPlaces() throws {
        for name in ["bright.json", "bright@2x.json"] { XCTAssertNil(ContentCheck.mismatch(try world("sprites/" + name), expected: .spriteIndex)) }
        XCTAssertNil(mismatch("{}", .spriteIndex), "an empty index is valid")
        XCTAssertEqual(mismatch(#"[{"x": 0}]"#, .spriteIndex), #"JSON text "[{\"x\": 0}]""#)
        XCTAssertEqual(
            mismatch(#"{"b": {"x": 0, "y": 0, "width": 1, "height": 1}, "a": {"x": "0", "y": 0, "width": 1, "height": 1}}"#, .spriteIndex),
            #"a JSON object whose entry "a" has no numeric x"#)
        XCTAssertEqual(mismatch(#"{"icon": 3}"#, .spriteIndex), #"a JSON object whose entry "icon" is not an object"#)
    }

    func testSpriteImagesArePNG() throws {
        for name in ["bright.png", "bright@2x.png"] { XCTAssertNil(ContentCheck.mismatch(try world("sprites/" + name), expected: .spriteImage)) }
        XCTAssertEqual(mismatch(#"{"error": "not found"}"#, .spriteImage), #"JSON text "{\"error\": \"not found\"}""#)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])
        XCTAssertEqual(ContentCheck.mismatch(jpeg, expected: .spriteImage), "a JPEG image")
    }

    func testGlyphRangesWalkAsFontStacks() throws {
        let ranges = try files(under: "fonts", ending: ".pbf")
        XCTAssertGreaterThan(ranges.count, 250)
        for range in ranges { XCTAssertNil(ContentCheck.mismatch(range, expected: .glyphs)) }
        XCTAssertNil(ContentCheck.mismatch(Data(), expected: .glyphs), "an empty range has no glyphs, as MapLibre reads it")
        XCTAssertEqual(mismatch(#"{"error": "..."}"#, .glyphs), #"JSON text "{\"error\": \"...\"}""#)
        // A stack whose length runs past the body.
        XCTAssertEqual(ContentCheck.mismatch(Data([0x0A, 0x7F, 0x0A, 0x01]), expected: .glyphs),
                       "4 bytes of binary (font stack 0 is not a message of field 1)")
        let tile = try world("tiles/land/3/3/1.pbf")
        XCTAssertNotNil(ContentCheck.mismatch(tile, expected: .glyphs), "a vector tile is no glyph range")
    }

    func testVectorTilesPassPlainOrGzippedAndTextDoesNot() throws {
        let tiles = try files(under: "tiles/helsinki", ending: ".pbf") + files(under: "tiles/land", ending: ".pbf")
        XCTAssertGreaterThan(tiles.count, 20)
        for tile in tiles {
            XCTAssertNil(ContentCheck.mismatch(tile, expected: .vectorTile))
            XCTAssertNil(ContentCheck.mismatch(try Zlib.gzip(tile), expected: .vectorTile))
        }
        XCTAssertNil(ContentCheck.mismatch(Data(), expected: .vectorTile), "empty is no content")
        XCTAssertEqual(mismatch("Service Unavailable", .vectorTile), #"text "Service Unavailable""#)
        XCTAssertEqual(
            ContentCheck.mismatch(try Zlib.gzip(Data(html.utf8)), expected: .vectorTile),
            #"gzip data holding HTML text "<!DOCTYPE html>\n<html><body>Internal adm...""#)
        let png = try world("tiles/geography-class-png/0/0/0.png")
        XCTAssertEqual(ContentCheck.mismatch(png, expected: .vectorTile), "a PNG image")
    }

    func testMapLibreTilesAreNeverRefusedAsBadProtobuf() throws {
        XCTAssertNil(mismatch("\u{3}\u{1}not a protobuf at all", .mapLibreTile))
        XCTAssertNil(ContentCheck.mismatch(try world("tiles/land/3/3/1.pbf"), expected: .mapLibreTile))
    }

    func testRasterTilesAndImagesAreImages() throws {
        let tiles = try files(under: "tiles/geography-class-png", ending: ".png")
        XCTAssertGreaterThan(tiles.count, 2)
        for tile in tiles { XCTAssertNil(ContentCheck.mismatch(tile, expected: .rasterTile)) }
        XCTAssertNil(ContentCheck.mismatch(try world("images/overlay.png"), expected: .image))
        let webp = Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)
        XCTAssertNil(ContentCheck.mismatch(webp, expected: .rasterTile))
        XCTAssertNil(ContentCheck.mismatch(Data(), expected: .rasterTile), "empty is no content")
        XCTAssertEqual(mismatch("GIF89a....", .image), "a GIF image")
        XCTAssertEqual(mismatch(html, .rasterTile), #"HTML text "<!DOCTYPE html>\n<html><body>Internal adm...""#)
        XCTAssertEqual(ContentCheck.mismatch(Data(), expected: .image), "an empty body")
    }

    func testDescriptionsEscapeWhatTheyShow() {
        XCTAssertEqual(ContentDescription.of(Data([0, 1, 2, 200, 3])), "5 bytes of binary")
        XCTAssertEqual(ContentDescription.of(Data("a\u{202E}b\"c\\".utf8)), #"text "a\u{202e}b\"c\\""#)
        XCTAssertEqual(ContentDescription.of(Data("  <?xml version=\"1.0\"?><Error/>".utf8)), #"XML text "<?xml version=\"1.0\"?><Error/>""#)
        // A UTF-8 character cut by the sniffed prefix still reads as text.
        let long = String(repeating: "ä", count: 400)
        XCTAssertEqual(ContentDescription.of(Data(long.utf8)), "text \"\(String(repeating: "ä", count: 40))...\"")
    }

    /// Every source kind says what its tiles must be; a TileJSON's `encoding` makes MLT.
    func testSourcesSayWhatTheirTilesAre() throws {
        let style = Data(#"{"version": 8, "sources": {"a": {"type": "vector", "url": "http://h.test/a.json"}}, "layers": []}"#.utf8)
        let source = try XCTUnwrap(Style(data: style, url: "http://h.test/s.json").tileSources.first)
        let mlt = Data(#"{"tiles": ["http://h.test/{z}/{x}/{y}"], "encoding": "mlt"}"#.utf8)
        XCTAssertEqual(try source.tileSource(tileJSON: mlt).content, .mapLibreTile)
        XCTAssertEqual(try source.tileSource(tileJSON: Data(#"{"tiles": ["http://h.test/{z}/{x}/{y}"]}"#.utf8)).content, .vectorTile)
        XCTAssertEqual(TileSource(id: "r", type: .rasterDEM, urlTemplate: "http://h.test/{z}").content, .rasterTile)
        let variety = try Style(data: try world("styles/variety.json"), url: "http://h.test/styles/variety.json")
        let contents = variety.sources.compactMap(\.resource).map(\.content)
        XCTAssertEqual(contents, [.tileJSON, .tileJSON, .geoJSON, .image])
    }
}
