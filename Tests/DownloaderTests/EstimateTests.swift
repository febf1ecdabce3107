import Basics
import Foundation
@testable import HTTP
import PackStore
import StyleModel
import TestSupport
import XCTest

@testable import Downloader

/// The estimate's parts without a network: the interpolation between measured zooms, the choice
/// of sample zooms and tiles, the resources' size classes, and whole estimates of the fixture
/// world's Helsinki region from documents on disk, a recording sampler and a real database.
final class EstimateTests: PackFSTestCase {
    let base = "http://127.0.0.1:8181"
    let helsinki = Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)

    // MARK: Interpolation

    func testZoomsBetweenMeasuredOnesAreInterpolatedInLogSpace() throws {
        let measured: [Int: ZoomSizes.Measure] = [
            2: .init(mean: 99, basis: .sampled(1)), 4: .init(mean: 9_999, basis: .stored(3)),
        ]
        let filled = ZoomSizes.fill(0...6, measured: measured)
        XCTAssertEqual(filled.count, 7)
        XCTAssertEqual(filled[2], measured[2])
        XCTAssertEqual(filled[4], measured[4])
        // log(1 + bytes) halfway between log(100) and log(10000): 1000 - 1.
        let middle = try XCTUnwrap(filled[3])
        XCTAssertEqual(middle.mean, 999, accuracy: 1e-6)
        XCTAssertEqual(middle.basis, .interpolated(between: 2, and: 4))
        // Beyond the measured zooms: the nearest one's mean.
        XCTAssertEqual(filled[0], ZoomSizes.Measure(mean: 99, basis: .extrapolated(from: 2)))
        XCTAssertEqual(filled[6], ZoomSizes.Measure(mean: 9_999, basis: .extrapolated(from: 4)))
    }

    func testEmptyZoomsAnchorTheCurveAndNothingMeasuredIsUnknown() throws {
        let filled = ZoomSizes.fill(0...4, measured: [0: .init(mean: 0, basis: .sampled(1)), 4: .init(mean: 80, basis: .sampled(1))])
        let means = filled.map { $0?.mean ?? -1 }
        XCTAssertEqual(means[0], 0)
        XCTAssertEqual(means[4], 80)
        XCTAssertEqual(means, means.sorted(), "grows steadily from the empty zoom")
        XCTAssertEqual(means[2], expm1(log(81) / 2), accuracy: 1e-9)
        XCTAssertEqual(ZoomSizes.fill(3...5, measured: [:]), [nil, nil, nil])
        XCTAssertEqual(ZoomSizes.fill(3...5, measured: [9: .init(mean: 5, basis: .sampled(1))]), [nil, nil, nil], "outside the range")
    }

    // MARK: Choosing samples

    func testSamplesGoDeepestFirstAndEverySetGetsOneBeforeAnyGetsTwo() {
        let sets = [
            TileSampling.SetShape(zooms: 0...4, measured: [], tiles: 5, deepestTiles: 1),
            TileSampling.SetShape(zooms: 0...14, measured: [], tiles: 19, deepestTiles: 4),
            TileSampling.SetShape(zooms: 1...1, measured: [], tiles: 1, deepestTiles: 1),
        ]
        let picks = TileSampling.picks(sets, budget: 8).map { [$0.set, $0.zoom, $0.spot == .centre ? 0 : 1] }
        XCTAssertEqual(picks, [
            [1, 14, 0], [0, 4, 0], [2, 1, 0],  // each set's deepest zoom, most tiles first
            [1, 0, 0], [0, 0, 0],  // shallowest (the single-zoom set has nothing more)
            [1, 14, 1], [0, 2, 0],  // a second tile at the deepest zoom; the middle of 0-4
            [1, 7, 0],  // the middle of 0-14
        ])
        XCTAssertEqual(TileSampling.picks(sets, budget: 0), [])
        XCTAssertEqual(TileSampling.picks(sets, budget: 100).count, 15 + 1 + 5 + 1, "every zoom once, then nothing more")
    }

    func testZoomsTheDatabaseMeasuredAreNotSampled() {
        let measured = TileSampling.SetShape(zooms: 0...14, measured: Set(0...13), tiles: 19, deepestTiles: 4)
        XCTAssertEqual(TileSampling.picks([measured], budget: 8).map(\.zoom), [14, 14])
        let all = TileSampling.SetShape(zooms: 0...14, measured: Set(0...14), tiles: 19, deepestTiles: 4)
        XCTAssertEqual(TileSampling.picks([all], budget: 8), [])
        let ends = TileSampling.SetShape(zooms: 0...10, measured: [0, 10], tiles: 9, deepestTiles: 4)
        XCTAssertEqual(TileSampling.picks([ends], budget: 3).map(\.zoom), [5, 8, 3], "widest gap first, the deeper on a tie")
    }

    func testTheCentreTileOfRectanglesAndGeometries() throws {
        let box = RegionDefinition.Area.bounds(helsinki)
        XCTAssertEqual(TileCover.tile(at: .centre, covering: box, zoom: 0, within: nil), TileCoordinate(z: 0, x: 0, y: 0))
        // At z14 the region is columns 9326-9327, rows 4741-4743 (as mercantile.tiles says).
        XCTAssertEqual(TileCover.tile(at: .centre, covering: box, zoom: 14, within: nil), TileCoordinate(z: 14, x: 9327, y: 4742))
        XCTAssertEqual(TileCover.tile(at: .near, covering: box, zoom: 14, within: nil), TileCoordinate(z: 14, x: 9326, y: 4741))
        // A geometry's centre lies in its own cover, which a bounding box's centre need not.
        let ring = [(24.0, 60.0), (26.0, 60.0), (24.0, 61.0), (24.0, 60.0)].map { Position(longitude: $0.0, latitude: $0.1) }
        let triangle = RegionDefinition.Area.geometry(.polygon([ring]))
        for zoom in [6, 10, 14] {
            let cover = Set(TileCover.tiles(covering: triangle, zoom: zoom))
            let tile = try XCTUnwrap(TileCover.tile(at: .centre, covering: triangle, zoom: zoom, within: nil))
            XCTAssertTrue(cover.contains(tile), "z\(zoom): \(tile)")
            XCTAssertTrue(cover.contains(try XCTUnwrap(TileCover.tile(at: .near, covering: triangle, zoom: zoom, within: nil))))
        }
        let elsewhere = Bounds(west: 0, south: 0, east: 1, north: 1)
        XCTAssertNil(TileCover.tile(at: .centre, covering: box, zoom: 10, within: elsewhere))
        XCTAssertNil(TileCover.tile(at: .centre, covering: triangle, zoom: 10, within: elsewhere))
    }

    // MARK: Resources

    func testResourceSamplesPerSizeClass() throws {
        let style = try Style(data: try document(base + "/styles/bright.json"), url: base + "/styles/bright.json")
        let resources = [StyleResource(url: style.url, kind: .style)] + style.resources(includeIdeographs: false)
        let sizing = ResourceSizing(style: style, resources: resources, includeIdeographs: false)
        XCTAssertEqual(sizing.entries.count, 297)
        XCTAssertEqual(sizing.entries.filter { $0.sizeClass == ResourceSizing.alphabetic }.count, 14 * 3)
        let fonts = base + "/fonts/Noto%20Sans%20Bold/"
        let samples = sizing.samples(known: [style.url: 1, base + "/tiles/helsinki.json": 1]).map(\.url)
        XCTAssertEqual(Set(samples), [
            fonts + "0-255.pbf", fonts + "8192-8447.pbf", fonts + "1536-1791.pbf",
            base + "/sprites/bright.json", base + "/sprites/bright.png",
            base + "/sprites/bright@2x.json", base + "/sprites/bright@2x.png",
        ])
        // A class with a known size is measured by it, not sampled.
        XCTAssertFalse(sizing.samples(known: [fonts + "256-511.pbf": 5]).contains { $0.url.hasSuffix("0-255.pbf") })
        let tallies = sizing.tallies(
            fetched: [style.url: 10], stored: [fonts + "0-255.pbf": 100],
            sampled: [fonts + "8192-8447.pbf": 300, fonts + "1536-1791.pbf": 7])
        let glyphs = try XCTUnwrap(tallies.first { $0.group == .glyphs })
        XCTAssertEqual([glyphs.count, glyphs.stored, glyphs.sampled, glyphs.estimated, glyphs.unknown], [291, 1, 2, 288, 0])
        // 100 + 300 + 7 known; 40 more alphabetic ranges at 200, 248 others at 7.
        XCTAssertEqual(glyphs.bytes, 407 + 40 * 200 + 248 * 7)
        XCTAssertEqual(tallies.first { $0.group == .sprites }?.unknown, 4)
        XCTAssertEqual(tallies.first { $0.group == .style }?.bytes, 10)
    }

    // MARK: Whole estimates

    func testCountsAndSampledBytesOfTheHelsinkiRegion() throws {
        let definition = RegionDefinition(styleURL: base + "/styles/bright.json", area: .bounds(helsinki), minZoom: 0, maxZoom: 14)
        let sampler = RecordingSampler(sizes: { url in url.contains("/tiles/") ? 1_000 : 50 })
        let estimate = try Estimate.make(for: definition, tileSamples: 8, document: { url, _ in try self.document(url) },
                                         sample: sampler.sample)
        XCTAssertEqual(estimate.tiles, 25)
        XCTAssertEqual(estimate.resources, 297)
        XCTAssertEqual(estimate.sources.map(\.id), ["openmaptiles", "land", "relief"])
        XCTAssertEqual(estimate.sources.map { $0.perZoom.map(\.tiles) }, [[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4], [1, 1, 1, 1, 1], [1]])
        XCTAssertEqual(sampler.batches, 1, "every sample in one batch")
        XCTAssertEqual(sampler.urls.filter { $0.kind == .tile }.count, 8)
        XCTAssertEqual(sampler.urls.count, 8 + 7)
        // Every zoom is measured or filled in at 1000 bytes a tile; resources at 50 where unknown.
        XCTAssertEqual(estimate.tileBytes, 25 * 1_000)
        XCTAssertEqual(estimate.unknownTiles, 0)
        XCTAssertEqual(estimate.sources[0].perZoom[14].basis, .sampled(2))
        XCTAssertEqual(estimate.sources[0].perZoom[10].basis, .interpolated(between: 7, and: 14))
        let glyphs = try XCTUnwrap(estimate.resourceGroups.first { $0.group == .glyphs })
        XCTAssertEqual(glyphs.bytes, 291 * 50)
    }

    func testFailedSamplesLeaveSizesUnknownWithoutFailing() throws {
        let definition = RegionDefinition(styleURL: base + "/styles/bright.json", area: .bounds(helsinki), minZoom: 0, maxZoom: 14)
        let sampler = RecordingSampler(sizes: { _ in nil })
        let estimate = try Estimate.make(for: definition, tileSamples: 8, document: { url, _ in try self.document(url) },
                                         sample: sampler.sample)
        XCTAssertEqual(estimate.unknownTiles, 25)
        XCTAssertEqual(estimate.tileBytes, 0)
        XCTAssertEqual(estimate.unknownResources, 295, "all but the style and TileJSON")
        XCTAssertGreaterThan(estimate.resourceBytes, 0)
    }

    func testStoredTilesOfTheSameTemplateAndRatioGiveTheSizes() throws {
        let database = try OfflineDatabase.open(path: temp.path("e.db"))
        defer { try? database.close() }
        let template = base + "/tiles/helsinki/{z}/{x}/{y}.pbf"
        try database.write { batch in
            // z14: two tiles of the region (300 and 100 bytes stored) and one far away (ignored
            // while some lie near the region); z10: one elsewhere only; z12: another ratio's.
            for (z, x, y, size) in [(14, 9326, 4741, 300), (14, 9327, 4742, 100), (14, 0, 0, 9_000), (10, 0, 0, 40)] {
                try batch.putTile(TileKey(urlTemplate: template, pixelRatio: 1, z: z, x: x, y: y),
                                  data: StoredData(bytes: Data(count: size), compressed: false), headers: CacheHeaders())
            }
            try batch.putTile(TileKey(urlTemplate: template, pixelRatio: 2, z: 12, x: 2331, y: 1185),
                              data: StoredData(bytes: Data(count: 5), compressed: false), headers: CacheHeaders())
        }
        let definition = RegionDefinition(styleURL: base + "/styles/bright.json", area: .bounds(helsinki), minZoom: 0, maxZoom: 14)
        let sampler = RecordingSampler(sizes: { _ in 0 })
        let estimate = try Estimate.make(for: definition, database: database, document: { url, _ in try self.document(url) },
                                         sample: sampler.sample)
        XCTAssertEqual(sampler.batches, 0, "no samples asked for")
        let zooms = estimate.sources[0].perZoom
        XCTAssertEqual(zooms[14].basis, .stored(2))
        XCTAssertEqual(zooms[14].bytes, 4 * 200)
        XCTAssertEqual(zooms[10].basis, .stored(1))
        XCTAssertEqual(zooms[10].bytes, 40)
        XCTAssertEqual(zooms[12].basis, .interpolated(between: 10, and: 14))
        XCTAssertEqual(zooms[0].basis, .extrapolated(from: 10))
        XCTAssertEqual(estimate.sources[1].unknownTiles, 5, "nothing of land stored, nothing sampled")
    }

    func testARecordedEstimateStaysShortWithManySources() throws {
        func estimate(sources: Int) -> Estimate {
            let zooms = (0...24).map { Estimate.Zoom(zoom: $0, tiles: 4, bytes: 4_000, basis: .interpolated(between: 0, and: 24)) }
            return Estimate(
                sources: (0..<sources).map { Estimate.Source(id: "s\($0)", urlTemplate: "http://h/\($0)/{z}/{x}/{y}", zooms: 0...24, perZoom: zooms) },
                resourceGroups: [], resources: 1, tiles: 100 * sources)
        }
        let one = estimate(sources: 1)
        XCTAssertEqual(one.recordedJSON, one.json, "a usual style's estimate is recorded whole")
        XCTAssertNotNil(one.recordedJSON["sources"]?.array?.first?["zooms"])
        let many = estimate(sources: 64)
        let recorded = many.recordedJSON
        XCTAssertGreaterThan(many.json.compactText.utf8.count, Estimate.recordedLimit)
        XCTAssertLessThan(recorded.compactText.utf8.count, Estimate.recordedLimit)
        XCTAssertNil(recorded["sources"]?.array?.first?["zooms"])
        XCTAssertEqual(recorded["sources"]?.array?.last?["bytes"], .number(100_000))
        XCTAssertEqual(recorded["bytes"], many.json["bytes"])
    }

    /// A world region to z24 whose three sources sample at 50 KB a tile: each source's bytes
    /// pass 3e18 (zooms 23 and 24 stop at the 1e18 cap), so their sum passes Int64's range. The
    /// totals stop at Int64.max; they trapped before, in `packfs estimate` and in a download's plan.
    func testByteTotalsOfAWorldRegionToZ24SaturateInsteadOfTrapping() throws {
        let sources = ["a", "b", "c"].map { "\"\($0)\": {\"type\": \"vector\", \"tiles\": [\"\(base)/\($0)/{z}/{x}/{y}.pbf\"], \"maxzoom\": 24}" }
        let style = Data("{\"version\": 8, \"sources\": {\(sources.joined(separator: ", "))}, \"layers\": []}".utf8)
        let world = Bounds(west: -180, south: -90, east: 180, north: 90)
        let definition = RegionDefinition(styleURL: base + "/style.json", area: .bounds(world), minZoom: 0, maxZoom: 24)
        let sampler = RecordingSampler(sizes: { _ in 50_000 })
        let estimate = try Estimate.make(for: definition, tileSamples: 8, document: { _, _ in style }, sample: sampler.sample)
        XCTAssertEqual(estimate.tiles, 3 * 375_299_968_947_541, "every tile of z0 to z24, three times")
        XCTAssert(estimate.sources.allSatisfy { $0.bytes > 3_100_000_000_000_000_000 }, "\(estimate.sources.map(\.bytes))")
        XCTAssertEqual(estimate.tileBytes, .max)
        XCTAssertEqual(estimate.bytes, .max)
        XCTAssertEqual(estimate.json["bytes"], .number(Double(Int64.max)))
    }

    // MARK: Helpers

    /// A fixture world document, `{base}` replaced.
    func document(_ url: String) throws -> Data {
        guard url.hasPrefix(base + "/") else { throw HTTPError.status(404, url: url) }
        let file = ProjectPaths.world.appendingPathComponent(String(url.dropFirst(base.count + 1)))
        return Data(try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "{base}", with: base).utf8)
    }
}

/// A sampler that records what it is asked and answers `sizes(url)`.
final class RecordingSampler: @unchecked Sendable {  // used from the test's thread only
    let sizes: (String) -> Int64?
    var urls: [(url: String, kind: ResourceKind)] = []
    var batches = 0

    init(sizes: @escaping (String) -> Int64?) { self.sizes = sizes }

    func sample(_ requests: [(url: String, kind: ResourceKind)]) -> [Int64?] {
        batches += 1
        urls += requests
        return requests.map { sizes($0.url) }
    }
}
