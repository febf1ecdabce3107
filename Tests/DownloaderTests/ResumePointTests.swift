import Basics
@testable import Downloader
import Foundation
import PackStore
@testable import StyleModel
import XCTest

/// A resume starts where the last run's committed tiles end: the plan's enumeration from a
/// position is exactly the rest of the whole one (reached by counts and runs, not tile by tile),
/// the fingerprint changes with anything that changes the plan, and the position is the oldest
/// chunk with a tile not committed.
final class ResumePointTests: XCTestCase {
    private let styleURL = "http://127.0.0.1:9/style.json"

    private func plan(_ definitionJSON: String, templates: [String] = ["http://127.0.0.1:9/a/{z}/{x}/{y}.pbf", "http://127.0.0.1:9/b/{z}/{x}/{y}.pbf"]) throws -> (DownloadPlan, RegionDefinition) {
        let definition = try RegionDefinition(mapLibreJSON: definitionJSON)
        let style = try Style(data: Data(#"{"version": 8, "sources": {}, "layers": []}"#.utf8), url: styleURL)
        let sources = templates.enumerated().map { index, template in
            TileSource(id: "s\(index)", type: .vector, urlTemplate: template, maxZoom: 14,
                       bounds: index == 1 ? Bounds(west: 24.9, south: 60.1, east: 25.0, north: 60.2) : nil)
        }
        return (DownloadPlan(definition: definition, style: style, sources: sources), definition)
    }

    private let box = #"{"style_url":"http://127.0.0.1:9/style.json","min_zoom":0.0,"max_zoom":13.0,"pixel_ratio":1.0,"include_ideographs":false,"bounds":[59.5,23.5,61.0,26.0]}"#
    private let triangle = #"{"style_url":"http://127.0.0.1:9/style.json","min_zoom":3.0,"max_zoom":13.0,"pixel_ratio":1.0,"include_ideographs":false,"geometry":{"type":"Polygon","coordinates":[[[23.5,59.5],[26.0,60.0],[24.9,61.0],[23.5,59.5]]]}}"#

    private func keys(_ plan: DownloadPlan, from start: Int) -> [TileKey] {
        var keys: [TileKey] = []
        plan.forEachTile(from: start) { key, _, _ in
            keys.append(key)
            return true
        }
        return keys
    }

    func testTheEnumerationFromAPositionIsTheRestOfTheWholeOne() throws {
        for json in [box, triangle] {
            let (plan, _) = try plan(json)
            let all = keys(plan, from: 0)
            XCTAssertEqual(all.count, plan.tileCount)
            XCTAssertGreaterThan(plan.tileCount, 500)
            let firstZoom = plan.tileSets[0].counts[0]
            let firstSet = plan.tileSets[0].counts.reduce(0, +)
            for start in [1, 7, firstZoom, firstZoom + 1, firstSet - 1, firstSet, firstSet + 3, plan.tileCount / 2,
                          plan.tileCount - 1, plan.tileCount, plan.tileCount + 10] {
                XCTAssertEqual(keys(plan, from: start), Array(all.dropFirst(start)), "from \(start)")
            }
        }
    }

    func testTheFingerprintNamesThePlan() throws {
        let (a, definition) = try plan(box)
        let (same, _) = try plan(box)
        XCTAssertEqual(a.fingerprint(of: definition), same.fingerprint(of: definition))
        let (deeper, deeperDefinition) = try plan(box.replacingOccurrences(of: "\"max_zoom\":13.0", with: "\"max_zoom\":12.0"))
        XCTAssertNotEqual(a.fingerprint(of: definition), deeper.fingerprint(of: deeperDefinition))
        let (other, _) = try plan(box, templates: ["http://127.0.0.1:9/c/{z}/{x}/{y}.pbf"])
        XCTAssertNotEqual(a.fingerprint(of: definition), other.fingerprint(of: definition))
    }

    func testThePositionIsTheOldestChunkNotCommitted() {
        let ledger = ResumeLedger()
        XCTAssertNil(ledger.point)
        ledger.begin(plan: "p", since: 0, at: 100)
        ledger.opened(start: 100, count: 3)
        ledger.opened(start: 103, count: 2)
        ledger.opened(start: 105, count: 2)
        ledger.committed([103, 103, 105])
        XCTAssertEqual(ledger.point?.position, 100, "the first chunk is not committed yet")
        ledger.committed([100, 100])
        XCTAssertEqual(ledger.point?.position, 100)
        ledger.committed([100])
        XCTAssertEqual(ledger.point?.position, 105, "chunks 100 and 103 are done; 105 has a tile left")
        ledger.committed([105])
        XCTAssertEqual(ledger.point, ResumePoint(plan: "p", since: 0, position: 107))
    }
}
