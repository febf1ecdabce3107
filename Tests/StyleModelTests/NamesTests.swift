import Foundation
import PackStore
import XCTest

@testable import StyleModel

/// The names a pack's tree takes from a style, the primary source, and the clamps applied where
/// a style or TileJSON is read.
final class NamesTests: XCTestCase {
    private func style(_ text: String) throws -> Style {
        try Style(data: Data(text.utf8), url: "http://h.test/styles/s.json")
    }

    func testEscapingIsOneComponentAndOneToOne() {
        let names = ["plain", "osm/tms", "a%2Fb", "a/b", "%", "", ".", "..", "%2E", "nul\0x", "mapbox://mapbox.satellite"]
        let escaped = names.map(FileName.escape)
        XCTAssertEqual(escaped[0], "plain")
        XCTAssertEqual(escaped[1], "osm%2Ftms")
        XCTAssertEqual(escaped[2], "a%252Fb")
        XCTAssertEqual(escaped[10], "mapbox:%2F%2Fmapbox.satellite")
        XCTAssertEqual(Set(escaped).count, names.count, "\(escaped)")
        for name in escaped {
            XCTAssertFalse(name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\0"), name)
        }
    }

    func testSourceSpriteAndFontNamesWithSlashesAreKeptAndEscaped() throws {
        let read = try style("""
            {"version":8,"glyphs":"https://g.test/{fontstack}/{range}.pbf",
             "sources":{"osm/tms":{"type":"vector","tiles":["https://t.test/{z}/{x}/{y}.pbf"],"scheme":"tms"}},
             "sprite":[{"id":"icons/poi","url":"https://s.test/sprite"}],
             "layers":[{"id":"l","type":"symbol","layout":{"text-field":"x","text-font":["A/B Regular"]}}]}
            """)
        XCTAssertEqual(read.sources.map(\.directoryName), ["osm%2Ftms"])
        XCTAssertEqual(read.sprites[0].files.first?.name, "icons%2Fpoi.json")
        XCTAssertEqual(read.fontStacks.map(FontStacks.directoryName), ["A%2FB Regular"])
        XCTAssertTrue(read.resources(includeIdeographs: false).contains {
            $0.url == "https://g.test/A%2fB%20Regular/0-255.pbf"
        })
    }

    func testNamesTooLongForADirectoryEntryAreRefusedNamingTheField() {
        let long = String(repeating: "x", count: 250)
        let source = { (id: String) in #"{"sources":{"\#(id)":{"type":"vector","tiles":["https://t/{z}"]}}}"# }
        let cases = [
            (source(long + "123456"), "sources.\(long)"),  // 256 bytes
            (#"{"sources":{},"sprite":[{"id":"\#(long)","url":"https://s/a"}]}"#, "sprite[0].id"),  // 250 + "@2x.json"
            (#"{"sources":{},"glyphs":"https://g/{fontstack}/{range}","layers":[{"id":"l","type":"symbol","layout":{"text-field":"x","text-font":["\#(long)","\#(long)"]}}]}"#,
             "text-font"),
        ]
        for (text, field) in cases {
            XCTAssertThrowsError(try style(text)) { XCTAssertTrue("\($0)".contains(field), "\($0)") }
        }
        XCTAssertNoThrow(try style(source(long + "12345")))  // 255 bytes: fits
        XCTAssertThrowsError(try style(source(long + "1234/")))  // 255, but "/" escapes to 3 bytes
    }

    func testTileJSONZoomsAreClampedTo24AndOutOfRangeOnesRefused() throws {
        let source = try XCTUnwrap(try style(#"{"sources":{"s":{"type":"vector","url":"https://t.test/a.json"}}}"#).sources.first)
        let deep = try source.tileSource(tileJSON: Data(#"{"tiles":["https://t/{z}/{x}/{y}"],"minzoom":30,"maxzoom":255}"#.utf8))
        XCTAssertEqual([deep.minZoom, deep.maxZoom], [24, 24])
        XCTAssertEqual(deep.coveringZooms(minZoom: 0, maxZoom: nil), 24...24)
        for bad in [#""maxzoom":256"#, #""maxzoom":-1"#, #""minzoom":"3""#] {
            XCTAssertThrowsError(try source.tileSource(tileJSON: Data(#"{"tiles":["https://t/{z}"],\#(bad)}"#.utf8)))
        }
    }

    func testCoveringZoomsAndRowsNeverTrapOnStoredNumbers() {
        let source = TileSource(id: "s", type: .raster, urlTemplate: "t", tileSize: 256)
        XCTAssertEqual(source.coveringZooms(minZoom: -.infinity, maxZoom: .nan), 0...0)
        XCTAssertNil(source.coveringZooms(minZoom: .infinity, maxZoom: 3))
        XCTAssertEqual(TileScheme.tms.row(5, z: 3), 2)
        XCTAssertEqual(TileScheme.tms.row(TileScheme.tms.row(12_345, z: 20), z: 20), 12_345)
        for z in [-1, 31, 63, 64, 1000] { _ = TileScheme.tms.row(7, z: z) }
        XCTAssertEqual(TileScheme.xyz.row(5, z: 3), 5)
    }

    func testPrimaryIsTheFirstVectorSourceWithTilesElseTheFirstTiledOne() {
        let raster = TileSource(id: "r", type: .raster, urlTemplate: "r")
        let vector = TileSource(id: "v", type: .vector, urlTemplate: "v")
        XCTAssertEqual(Style.primary(of: [raster, nil, vector]), 2)
        XCTAssertEqual(Style.primary(of: [nil, raster]), 1)
        XCTAssertNil(Style.primary(of: [nil, nil]))
    }

    /// (A GeoJSON source's own tiling options are not a tiled source's: not read, not refused.)
    func testDataFilesOfGeoJSONAndImageSources() throws {
        let read = try style("""
            {"sources":{"g":{"type":"geojson","data":"d.geojson","tileSize":0,"maxzoom":99},"i":{"type":"image","url":"/img/a.JPEG?x=1"},
              "w":{"type":"image","url":"https://i.test/b.webp"},"p":{"type":"image","url":"https://i.test/c"}}}
            """)
        XCTAssertEqual(read.sources.map(\.dataFileName), ["data.geojson", "image.jpg", "image.webp", "image.png"])
        XCTAssertEqual(read.sources.map(\.resource?.kind), [.source, .image, .image, .image])
        XCTAssertEqual(GlyphTemplate.fileName(range: 256...511), "256-511.pbf")
    }
}
