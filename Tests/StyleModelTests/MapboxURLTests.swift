import StyleModel
import XCTest

/// MapLibre's canonicalizeTileURL cases: the token goes, mapbox://tiles/ comes, rasters get @2x
/// (512-px tiles) or {ratio}.
final class MapboxURLTests: XCTestCase {
    func testCanonicalTemplates() {
        XCTAssertEqual(
            MapboxURL.canonicalTileTemplate(
                "https://api.mapbox.com/v4/mapbox.mapbox-streets-v8/{z}/{x}/{y}.vector.pbf?access_token=pk.abc",
                type: .vector, tileSize: 512),
            "mapbox://tiles/mapbox.mapbox-streets-v8/{z}/{x}/{y}.vector.pbf")
        XCTAssertEqual(
            MapboxURL.canonicalTileTemplate(
                "https://a.tiles.mapbox.com/v4/mapbox.satellite/{z}/{x}/{y}.webp?access_token=t&style=x",
                type: .raster, tileSize: 256),
            "mapbox://tiles/mapbox.satellite/{z}/{x}/{y}{ratio}.webp?style=x")
        XCTAssertEqual(
            MapboxURL.canonicalTileTemplate("https://api.mapbox.cn/v4/mapbox.terrain-rgb/{z}/{x}/{y}.pngraw?access_token=t",
                                         type: .raster, tileSize: 512),
            "mapbox://tiles/mapbox.terrain-rgb/{z}/{x}/{y}@2x.pngraw")
    }

    func testOtherURLsAreUnchanged() {
        for url in ["http://127.0.0.1:8181/tiles/{z}/{x}/{y}.pbf", "https://api.mapbox.com/styles/v1/u/s/{z}.png",
                    "https://example.com/v4/x/{z}/{x}/{y}.pbf", "mapbox://tiles/a/{z}/{x}/{y}.pbf"] {
            XCTAssertEqual(MapboxURL.canonicalTileTemplate(url, type: .vector, tileSize: 512), url)
        }
    }
}
