import Basics
import PackStore
import XCTest

@testable import Downloader

/// Hand-checked covers (each value also checked with mercantile), and the laziness and counting
/// that tile limits rely on.
final class TileCoverRuleTests: XCTestCase {
    func pos(_ lon: Double, _ lat: Double) -> Position { Position(longitude: lon, latitude: lat) }

    func box(_ w: Double, _ s: Double, _ e: Double, _ n: Double) -> [Position] {
        [pos(w, s), pos(e, s), pos(e, n), pos(w, n), pos(w, s)]
    }

    func xy(_ tiles: [TileCoordinate]) -> [[Int]] { tiles.map { [$0.x, $0.y] } }

    func testHelsinkiBoundsAtZoom14() {
        let area = RegionDefinition.Area.bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18))
        let tiles = TileCover.tiles(covering: area, zoom: 14)
        XCTAssertEqual(Set(tiles.map(\.x)), [9326, 9327])
        XCTAssertEqual(Set(tiles.map(\.y)), [4741, 4742, 4743])
        XCTAssertEqual(tiles.count, 6)
        XCTAssertEqual(TileCover.count(covering: area, zoom: 14), 6)
        XCTAssertEqual(tiles.first, TileCoordinate(z: 14, x: 9326, y: 4741))
    }

    func testEast180IsTheLastColumnNeverTwoToTheZ() {
        let area = RegionDefinition.Area.bounds(Bounds(west: 170, south: -10, east: 180, north: 10))
        XCTAssertEqual(xy(TileCover.tiles(covering: area, zoom: 3)), [[7, 3], [7, 4]])
        let edge = RegionDefinition.Area.bounds(Bounds(west: 180, south: 0, east: 180, north: 0))
        XCTAssertEqual(xy(TileCover.tiles(covering: edge, zoom: 2)), [[3, 2]])
    }

    func testPointsOnTheAntimeridianAndThePole() {
        XCTAssertEqual(xy(TileCover.tiles(covering: .geometry(.point(pos(180, 0))), zoom: 1)), [[1, 1]])
        XCTAssertEqual(xy(TileCover.tiles(covering: .geometry(.point(pos(-180, 0))), zoom: 1)), [[0, 1]])
        XCTAssertEqual(xy(TileCover.tiles(covering: .geometry(.point(pos(0, 90))), zoom: 2)), [[2, 0]])
    }

    func testZeroWidthBoundsOnATileEdgeKeepTheTileThatOwnsIt() {
        // mercantile.tiles(0, 10, 0, 20, 3) is empty; a region must cover something.
        let area = RegionDefinition.Area.bounds(Bounds(west: 0, south: 10, east: 0, north: 20))
        XCTAssertEqual(xy(TileCover.tiles(covering: area, zoom: 3)), [[4, 3]])
    }

    func testHoleExcludesTilesInsideItAndKeepsTilesOnItsEdge() {
        let polygon = Geometry.polygon([box(-60, -40, 60, 50), box(-30.5, -20.5, 30.5, 30.5)])
        let tiles = Set(TileCover.tiles(covering: .geometry(polygon), zoom: 5).map { [$0.x, $0.y] })
        XCTAssertFalse(tiles.contains([16, 16]), "0..11.25 E, 0..11.18 S lies inside the hole")
        XCTAssertTrue(tiles.contains([13, 16]), "the hole's west edge, 30.5 W, crosses 33.75..22.5 W")
        XCTAssertTrue(tiles.contains([12, 16]), "45..33.75 W is between the outer ring and the hole")
        XCTAssertEqual(tiles.count, 108)
    }

    func testSourceBoundsLeaveOutTilesOutsideThem() {
        let world = RegionDefinition.Area.bounds(Bounds(west: -180, south: -90, east: 180, north: 90))
        let source = Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)
        XCTAssertEqual(TileCover.count(covering: world, zoom: 14, within: source), 6)
        let line = RegionDefinition.Area.geometry(.lineString([pos(-10, -10), pos(10, 10)]))
        XCTAssertEqual(TileCover.count(covering: line, zoom: 6, within: source), 0)
        XCTAssertEqual(TileCover.tiles(covering: line, zoom: 6, within: source), [])
    }

    func testBoundsCountIsArithmetic() {
        let world = RegionDefinition.Area.bounds(Bounds(west: -180, south: -90, east: 180, north: 90))
        XCTAssertEqual(TileCover.count(covering: world, zoom: 24), 1 << 48)
        XCTAssertEqual(Array(TileCover(world, zoom: 12).spans.prefix(2)), [
            TileSpan(y: 0, x: 0...4095), TileSpan(y: 1, x: 0...4095),
        ])
    }

    func testHugeGeometryCoverIsCountedAndStreamedWithoutAList() {
        // 4^16 = 4.3 billion tiles: only a row of runs at a time can be held.
        let world = RegionDefinition.Area.geometry(.polygon([box(-180, -90, 180, 90)]))
        XCTAssertEqual(TileCover.count(covering: world, zoom: 16), 1 << 32)
        let cover = TileCover(world, zoom: 22)
        XCTAssertEqual(xy(Array(cover.prefix(3))), [[0, 0], [1, 0], [2, 0]])
        let span = cover.spans.first { $0.y == 3 }
        XCTAssertEqual(span, TileSpan(y: 3, x: 0...(1 << 22) - 1))
    }

    func testACoverCanBeIteratedTwice() {
        let line = RegionDefinition.Area.geometry(.multiLineString([
            [pos(10.1, 50.2), pos(13.7, 52.9), pos(15.3, 47.1)], [pos(-3.7, 40.4), pos(-0.4, 39.5)],
        ]))
        let cover = TileCover(line, zoom: 9)
        XCTAssertEqual(Array(cover), Array(cover))
        XCTAssertEqual(cover.count, Array(cover).count)
    }

    func testMultiPolygonPartsAreUnitedWithoutDuplicates() {
        let overlapping = Geometry.multiPolygon([[box(-20, -20, 20, 20)], [box(0, 0, 40, 40)]])
        let tiles = TileCover.tiles(covering: .geometry(overlapping), zoom: 5)
        XCTAssertEqual(tiles.count, Set(tiles).count)
        XCTAssertEqual(tiles, tiles.sorted())
    }

    func testTileCoordinateOrderAndDescription() {
        XCTAssertLessThan(TileCoordinate(z: 3, x: 7, y: 1), TileCoordinate(z: 3, x: 0, y: 2))
        XCTAssertEqual(TileCoordinate(z: 14, x: 9326, y: 4741).description, "14/9326/4741")
    }
}
