@testable import Downloader
import PMTilesFormat
import XCTest

/// How an archive's tile extents become range requests, and how a tile id finds its entry.
final class RangeMergerTests: XCTestCase {
    func testOverlappingExtentsShareARequestAndTouchingOnesUpToTheCap() {
        // 0 and 2 are one content (a deduplicated tile); 1 touches it; 3 touches 1.
        let extents: [(offset: UInt64, length: UInt64)] = [(0, 100), (100, 50), (0, 100), (150, 60)]
        let one = RangeMerger.merge(extents, overfetch: 0, maxLength: 1 << 20)
        XCTAssertEqual(one, [.init(offset: 0, length: 210, members: [0, 2, 1, 3])])
        let capped = RangeMerger.merge(extents, overfetch: 0, maxLength: 160)
        XCTAssertEqual(capped.map(\.offset), [0, 150], "touching extents split where a request would pass the cap")
        XCTAssertEqual(capped.map(\.length), [150, 60])
    }

    func testTheSmallestGapsAreBridgedWithinTheOverfetchBudget() {
        // 1,000 bytes needed; gaps of 10, 200 and 40 bytes.
        let extents: [(offset: UInt64, length: UInt64)] = [(0, 250), (260, 250), (710, 250), (1000, 250)]
        XCTAssertEqual(RangeMerger.merge(extents, overfetch: 0, maxLength: 1 << 20).count, 4)
        let under = RangeMerger.merge(extents, overfetch: 0.049, maxLength: 1 << 20)
        XCTAssertEqual(under.map(\.offset), [0, 710, 1000], "49 bytes: the 10-byte gap only (40 more would pass it)")
        let five = RangeMerger.merge(extents, overfetch: 0.05, maxLength: 1 << 20)
        XCTAssertEqual(five.map(\.offset), [0, 710], "50 bytes: the 10- and 40-byte gaps")
        XCTAssertEqual(five.map(\.length), [510, 540])
        let all = RangeMerger.merge(extents, overfetch: 1, maxLength: 1 << 20)
        XCTAssertEqual(all, [.init(offset: 0, length: 1250, members: [0, 1, 2, 3])])
    }

    func testEveryExtentLandsInExactlyOneRequestThatHoldsIt() {
        var generator = SystemRandomNumberGenerator()
        var extents: [(offset: UInt64, length: UInt64)] = []
        for _ in 0..<2000 {
            extents.append((UInt64.random(in: 0..<1_000_000, using: &generator), UInt64.random(in: 1..<5000, using: &generator)))
        }
        let groups = RangeMerger.merge(extents, overfetch: 0.05, maxLength: 64 << 10)
        XCTAssertEqual(groups.flatMap(\.members).sorted(), Array(extents.indices))
        for group in groups {
            for member in group.members {
                XCTAssertGreaterThanOrEqual(extents[member].offset, group.offset)
                XCTAssertLessThanOrEqual(extents[member].offset + extents[member].length, group.offset + group.length)
            }
        }
    }

    func testALookupFindsTheRunOrLeafAtOrBeforeAnID() {
        let entries = [
            PMTilesEntry(tileID: 0, offset: 0, length: 10, runLength: 1),
            PMTilesEntry(tileID: 5, offset: 10, length: 10, runLength: 3),
            PMTilesEntry(tileID: 100, offset: 0, length: 50, runLength: 0),
        ]
        XCTAssertEqual(RemoteArchive.lastEntry(in: entries, atOrBefore: 0)?.tileID, 0)
        XCTAssertEqual(RemoteArchive.lastEntry(in: entries, atOrBefore: 4)?.tileID, 0)
        XCTAssertEqual(RemoteArchive.lastEntry(in: entries, atOrBefore: 7)?.tileID, 5)
        XCTAssertEqual(RemoteArchive.lastEntry(in: entries, atOrBefore: 1 << 40)?.tileID, 100)
        XCTAssertNil(RemoteArchive.lastEntry(in: Array(entries.dropFirst()), atOrBefore: 4))
    }
}
