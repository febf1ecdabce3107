import Basics
@testable import Downloader
import Foundation
import PackStore
import TestSupport
import XCTest

/// The writer's running counts (what progress shows during a download) must equal what the
/// database query counts, whatever mix of new, replaced, adopted and revalidated rows a batch holds.
final class BatchWriterTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    private let template = "http://h/tiles/{z}/{x}/{y}.pbf"

    private func key(_ x: Int) -> TileKey { TileKey(urlTemplate: template, pixelRatio: 1, z: 5, x: x, y: 0) }
    private func data(_ size: Int) -> StoredData { StoredData(bytes: Data(repeating: 7, count: size), compressed: false) }

    private func pack(_ name: String) throws -> RegionID {
        let definition = RegionDefinition(
            styleURL: "http://h/style.json", area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)),
            minZoom: 0, maxZoom: 5)
        return try database.createPack(name: name, definition: definition).id
    }

    private func writer(for region: RegionID) -> BatchWriter {
        let writer = BatchWriter(database: database, region: region, maxItems: 3)
        writer.status = { PackStatus(state: .active) }
        return writer
    }

    private func assertCountsMatch(_ writer: BatchWriter, _ region: RegionID, line: UInt = #line) throws {
        try writer.finish()
        XCTAssertEqual(writer.progress?.counts, try database.progress(of: region).counts, line: line)
    }

    func testRunningCountsEqualTheQuery() throws {
        let a = try pack("a"), b = try pack("b")
        let first = writer(for: a)
        first.add(.resource(url: "http://h/style.json", kind: .style, data: data(40), headers: CacheHeaders()))
        for x in 0..<4 { first.add(.tile(key(x), data: data(100 + x), size: nil, headers: CacheHeaders(), replaces: false)) }
        first.add(.tile(key(9), data: .noContent, size: nil, headers: CacheHeaders(), replaces: false))
        try assertCountsMatch(first, a)

        // Rows of another pack, one of them shared with a.
        try database.write { batch in
            try batch.link(tile: batch.putTile(key(20), data: data(300), headers: CacheHeaders()), to: b)
            try batch.link(tile: XCTUnwrap(batch.tileID(key(0))), to: b)
        }
        let second = writer(for: a)
        second.add(.adoptedTile(key(20)))                      // gained, with b's size
        second.add(.adoptedTile(key(0)))                       // held already
        second.add(.adoptedTile(key(30)))                      // not stored: nothing
        second.add(.tile(key(1), data: data(5), size: nil, headers: CacheHeaders(), replaces: true))  // shrinks
        second.add(.revalidatedTile(key(2), headers: CacheHeaders(etag: "e")))
        second.add(.resource(url: "http://h/style.json", kind: .style, data: data(90), headers: CacheHeaders()))
        second.add(.adoptedResource(url: "http://h/missing.json"))
        try assertCountsMatch(second, a)

        // A change made beside the writer is picked up after recount().
        try database.unlink(tiles: [key(3)], resources: [], from: a)
        second.recount()
        second.add(.tile(key(4), data: data(70), size: nil, headers: CacheHeaders(), replaces: false))
        try assertCountsMatch(second, a)
    }
}
