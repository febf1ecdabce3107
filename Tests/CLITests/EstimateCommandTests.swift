import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs estimate` against nginx serving the fixture world: tile counts per source and zoom
/// against mercantile's (run as a process), and the byte estimate against what the download then
/// stores, from server samples and from a database holding a previous pack of the same sources.
final class EstimateCommandTests: CLITestCase {
    /// Central Helsinki, z0-14: 25 tiles and 297 resources.
    let helsinki = [24.93, 60.16, 24.96, 60.18]

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer.nginx()
    }


    func testTileCountsPerZoomMatchMercantile() throws {
        // openmaptiles is clipped to its TileJSON's bounds; land (vector, z0-4) is not; relief is
        // a 256-pixel raster: one zoom deeper, clamped to its maxzoom 1 (docs/design.md §4).
        let tileJSON = try XCTUnwrap(JSONValue.parse(try Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/helsinki.json"))))
        let sourceBounds = try XCTUnwrap(tileJSON["bounds"]?.array?.compactMap(\.number))
        for bounds in [helsinki, [19.0, 59.0, 31.0, 70.0]] {
            let estimate = try estimateJSON(region(bounds), "--samples", "0")
            let sources = try XCTUnwrap(estimate["sources"]?.array)
            XCTAssertEqual(sources.map { $0["id"]?.string }, ["openmaptiles", "land", "relief"])
            let expected = [
                try mercantileCounts(bounds, within: sourceBounds, zooms: 0...14),
                try mercantileCounts(bounds, within: nil, zooms: 0...4), try mercantileCounts(bounds, within: nil, zooms: 1...1),
            ]
            for (source, counts) in zip(sources, expected) {
                let zooms = source["zooms"]?.array ?? []
                XCTAssertEqual(zooms.compactMap { $0["zoom"]?.number.map(Int.init) }, counts.map(\.zoom), "\(bounds)")
                XCTAssertEqual(zooms.compactMap { $0["tiles"]?.number.map(Int.init) }, counts.map(\.tiles), "\(bounds) \(source["id"] ?? .null)")
                XCTAssertEqual(source["tiles"]?.number.map(Int.init), counts.reduce(0) { $0 + $1.tiles })
            }
            XCTAssertEqual(estimate["tiles"]?.number.map(Int.init), expected.joined().reduce(0) { $0 + $1.tiles })
            XCTAssertEqual(estimate["resources"], .number(297))
        }
    }

    func testSampledBytesAreWithinAFactorOfTwoOfTheDownload() throws {
        let region = try region(helsinki)
        let started = Date()
        let estimate = try estimateJSON(region)
        let seconds = Date().timeIntervalSince(started)
        let requests = try XCTUnwrap(estimate["requests"]?.number.map(Int.init))
        // The style, the TileJSON, 8 tiles, 4 sprite files and 3 glyph ranges.
        XCTAssertEqual(requests, 17)
        XCTAssertEqual(try server.waitForLog(count: requests).count, requests, "the count printed is the count served")
        XCTAssertEqual(estimate["unknown_tiles"], .number(0))
        XCTAssertEqual(estimate["unknown_resources"], .number(0))
        let actual = try download(region, into: db, name: "helsinki")
        let ratio = try compare(estimate, actual, label: "from server samples", seconds: seconds)
        XCTAssertTrue((0.5...2).contains(ratio), "estimated/actual \(ratio)")
    }

    func testStoredBytesOfAPreviousPackAreWithinAQuarter() throws {
        // A pack of the region's south-west quarter holds tiles of every zoom of every source.
        let previous = try download(try region([24.93, 60.16, 24.945, 60.17], name: "quarter.json"), into: db, name: "quarter")
        XCTAssertGreaterThan(previous.tiles, 0)
        let logged = try server.waitForLog(count: previous.members).count
        let region = try region(helsinki)
        let started = Date()
        let estimate = try estimateJSON(region, "--db", db)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(estimate["requests"], .number(2), "the style and the TileJSON: nothing sampled")
        XCTAssertEqual(try server.waitForLog(count: logged + 2, timeout: 1).count, logged + 2)
        for source in estimate["sources"]?.array ?? [] {
            for zoom in source["zooms"]?.array ?? [] {
                XCTAssertEqual(zoom["basis"], .string("stored"), "\(source["id"] ?? .null) \(zoom)")
            }
        }
        let glyphs = estimate["resource_groups"]?.array?.first { $0["group"] == .string("glyphs") }
        XCTAssertEqual(glyphs?["stored"], .number(291))
        let actual = try download(region, into: db, name: "helsinki")
        let ratio = try compare(estimate, actual, label: "from a previous pack's stored tiles", seconds: seconds)
        XCTAssertTrue((0.75...1.25).contains(ratio), "estimated/actual \(ratio)")
        // The download recorded an estimate from the database when it planned the pack, and
        // again from what it stored once it was done.
        let recorded = try XCTUnwrap(JSONValue.parse(Data(try packfs("status", db, "helsinki", "--json").stdout.utf8))?["estimate"])
        XCTAssertEqual(recorded["tiles"], .number(25))
        XCTAssertEqual(recorded["unknown_tiles"], .number(0))
        XCTAssertEqual(recorded["sources"]?.array?.map { $0["id"] }, estimate["sources"]?.array?.map { $0["id"] })
        let status = try packfs("status", db, "helsinki").stdout
        XCTAssertTrue(status.contains("estimate:   25 tiles and 297 resources, about 1."), status)
    }

    func testTheTableSaysHowEachFigureIsKnown() throws {
        let text = try packfs("estimate", try region(helsinki))
        XCTAssertEqual(text.status, 0, text.stderr)
        for expected in ["source openmaptiles", "from 2 sampled tiles", "interpolated from z7 and z14", "glyphs",
                         "3 sampled, 288 estimated from those", "total: 25 tiles and 297 resources (322 to download), about",
                         "requests: 17"] {
            XCTAssertTrue(text.stdout.contains(expected), "\(expected) in:\n\(text.stdout)")
        }
        let none = try packfs("estimate", try region(helsinki), "--samples", "0")
        XCTAssertTrue(none.stdout.contains("plus 25 tiles and 295 resources of unknown size"), none.stdout)
        // A size nothing measured is "?" (or ">= what is known"), never "0 B".
        let allRow = try XCTUnwrap(none.stdout.split(separator: "\n").first { $0.hasPrefix("  all ") })
        XCTAssertTrue(allRow.contains(" ? ") || allRow.contains(">= "), String(allRow))
        XCTAssertFalse(none.stdout.contains(" 0 B"), none.stdout)
        let json = try estimateJSON(try region(helsinki), "--samples", "0")
        XCTAssertEqual(json["bytes"], .null)
        XCTAssertEqual(json["tile_bytes"], .null)
        XCTAssertNotNil(json["known_bytes"]?.number)
        XCTAssertEqual(try packfs("estimate", try region(helsinki), "--samples", "-1").status, 2)
        let missing = try packfs("estimate", try region(helsinki), "--db", temp.path("absent.db"))
        XCTAssertEqual(missing.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("absent.db")), "--db is only read")
    }

    // MARK: Helpers

    func region(_ bounds: [Double], name: String = "region.json") throws -> String {
        let path = temp.path(name)
        try """
            {"style": "\(server.baseURL)/styles/bright.json", "bounds": [\(bounds.map { "\($0)" }.joined(separator: ", "))],
             "minzoom": 0, "maxzoom": 14}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func estimateJSON(_ region: String, _ arguments: String...) throws -> JSONValue {
        let outcome = try packfs(["estimate", region, "--json"] + arguments)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return try XCTUnwrap(JSONValue.parse(Data(outcome.stdout.utf8)), outcome.stdout)
    }

    struct Stored {
        var bytes: Double
        var tileBytes: Double
        var tiles: Int
        /// Resources and tiles of the pack: in a fresh database, one request each.
        var members: Int
    }

    /// Downloads `region` as pack `name` and returns what the pack then holds (stored sizes).
    func download(_ region: String, into db: String, name: String) throws -> Stored {
        let outcome = try packfs("download", db, name, region)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let status = try XCTUnwrap(JSONValue.parse(Data(try packfs("status", db, name, "--json").stdout.utf8)))
        XCTAssertEqual(status["state"], .string("complete"))
        return Stored(
            bytes: status["completed_bytes"]?.number ?? 0, tileBytes: status["completed_tile_bytes"]?.number ?? 0,
            tiles: Int(status["completed_tiles"]?.number ?? 0), members: Int(status["completed_resources"]?.number ?? 0))
    }

    /// Prints the estimate against the download and returns estimated/actual bytes.
    func compare(_ estimate: JSONValue, _ actual: Stored, label: String, seconds: Double) throws -> Double {
        let bytes = try XCTUnwrap(estimate["bytes"]?.number)
        let tileBytes = try XCTUnwrap(estimate["tile_bytes"]?.number)
        let ratio = bytes / actual.bytes
        print(String(format: "estimate %@: %.0f bytes for %.0f stored, ratio %.3f (tiles %.0f for %.0f, ratio %.3f); %.3f s, %d requests",
                     label, bytes, actual.bytes, ratio, tileBytes, actual.tileBytes, tileBytes / actual.tileBytes, seconds,
                     Int(estimate["requests"]?.number ?? 0)))
        return ratio
    }

    /// Tiles per zoom by mercantile (`mercantile.tiles`, and only those also in the cover of
    /// `within` when given), as a process.
    func mercantileCounts(_ bounds: [Double], within: [Double]?, zooms: ClosedRange<Int>) throws -> [(zoom: Int, tiles: Int)] {
        let script = """
            import json, sys, mercantile
            b, w, lo, hi = json.loads(sys.argv[1])
            out = []
            for z in range(lo, hi + 1):
                tiles = set(mercantile.tiles(*b, zooms=z))
                if w: tiles &= set(mercantile.tiles(*w, zooms=z))
                out.append(len(tiles))
            print(json.dumps(out))
            """
        let input = JSONValue.array([
            .array(bounds.map(JSONValue.number)), within.map { .array($0.map(JSONValue.number)) } ?? .null,
            .number(Double(zooms.lowerBound)), .number(Double(zooms.upperBound)),
        ]).compactText
        let outcome = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, input])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let counts = try XCTUnwrap(JSONValue.parse(Data(outcome.stdout.utf8))?.array?.compactMap(\.number), outcome.stdout)
        return zip(zooms, counts).map { ($0, Int($1)) }
    }
}
