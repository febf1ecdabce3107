import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

@testable import Downloader

/// Compares `TileCover` with the independent references of `Reference/cover_reference.py`
/// (mercantile for bounds; supermercado, and an exact rational implementation of the same rules
/// that the script checks against supermercado, for geometries). Needs python3 with
/// `pip install mercantile supermercado`: skipped without them, except under CI=true, where it fails.
final class TileCoverTests: XCTestCase {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Reference/cover_reference.py")

    func testMatchesReferenceCovers() throws {
        let cases = try referenceCases()
        XCTAssertGreaterThanOrEqual(cases.count, 30)
        for reference in cases {
            let cover = TileCover(reference.area, zoom: reference.zoom, within: reference.within)
            let tiles = Array(cover)
            let got = Set(tiles.map { [$0.x, $0.y] })
            let label = "\(reference.name) (\(reference.source))"
            XCTAssertEqual(tiles.count, got.count, "\(label): a tile listed twice")
            XCTAssertEqual(tiles, tiles.sorted(), "\(label): not in row-major order")
            XCTAssertTrue(tiles.allSatisfy { $0.z == reference.zoom }, label)
            XCTAssertEqual(cover.count, got.count, "\(label): count differs from the tiles listed")
            if got != reference.tiles {
                let extra = got.subtracting(reference.tiles).sorted { $0.lexicographicallyPrecedes($1) }
                let missing = reference.tiles.subtracting(got).sorted { $0.lexicographicallyPrecedes($1) }
                XCTFail("\(label): extra \(extra.prefix(20)), missing \(missing.prefix(20))")
            }
        }
    }

    // MARK: running the reference

    struct ReferenceCase {
        var name: String
        var source: String
        var zoom: Int
        var area: RegionDefinition.Area
        var within: Bounds?
        var tiles: Set<[Int]>
    }

    func referenceCases() throws -> [ReferenceCase] {
        try requirePython()
        let run = try Self.python([Self.script.path])
        guard run.status == 0 else {
            XCTFail("cover_reference.py failed (exit \(run.status)):\n\(run.stderr)")
            return []
        }
        guard let json = JSONValue.parse(run.stdout), let cases = json["cases"]?.array else {
            XCTFail("cover_reference.py printed no JSON")
            return []
        }
        // The exact reference is trusted because it matched mercantile and supermercado this often.
        XCTAssertGreaterThanOrEqual(json["checks"]?["mercantile agrees with exact"]?.number ?? 0, 15)
        XCTAssertGreaterThanOrEqual(json["checks"]?["supermercado agrees with exact"]?.number ?? 0, 30)
        return try cases.map(Self.referenceCase)
    }

    static func referenceCase(_ json: JSONValue) throws -> ReferenceCase {
        let name = json["name"]?.string ?? "?"
        func bounds(_ value: JSONValue?) -> Bounds? {
            guard let b = value?.array?.compactMap(\.number), b.count == 4 else { return nil }
            return Bounds(west: b[0], south: b[1], east: b[2], north: b[3])
        }
        let area: RegionDefinition.Area
        if let box = bounds(json["area"]?["bounds"]) {
            area = .bounds(box)
        } else {
            let geometry = try XCTUnwrap(json["area"]?["geometry"], name)
            area = .geometry(try GeoJSON.geometry(from: geometry, field: name))
        }
        let tiles = (json["tiles"]?.array ?? []).map { ($0.array ?? []).compactMap(\.number).map { Int($0) } }
        return ReferenceCase(
            name: name, source: json["reference"]?.string ?? "?", zoom: Int(json["zoom"]?.number ?? -1),
            area: area, within: bounds(json["within"]), tiles: Set(tiles))
    }

    /// Skips when python3 or its packages are missing, unless CI=true: CI must run this test.
    func requirePython() throws {
        let probe = try? Self.python(["-c", "import mercantile, supermercado.burntiles"])
        guard let probe, probe.status == 0 else {
            let cause = probe?.stderr.split(separator: "\n").last.map(String.init) ?? "python3 did not start"
            let why = "python3 with mercantile and supermercado is needed (pip install mercantile supermercado): " + cause
            if isCI { throw ReferenceUnavailable(reason: why) }
            throw XCTSkip(why)
        }
    }

    struct ReferenceUnavailable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Runs python3 to its end (`Command.runApart` reads both pipes at once, so neither fills
    /// and blocks it); its output is JSON text.
    static func python(_ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let outcome = try Command.runApart("/usr/bin/env", ["python3"] + arguments)
        return (outcome.status, Data(outcome.stdout.utf8), outcome.stderr)
    }
}
