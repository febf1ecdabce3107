import Foundation
@testable import PackFS
import PackStore
import XCTest

/// The contents a lookup keeps for the read after it: a short list, bounded in count and bytes, oldest
/// out first, each taken by the read that reaches its end; sizes outlive them, in a table of fixed slots.
final class ContentCacheTests: XCTestCase {
    private func tile(_ region: Int64, _ id: Int64) throws -> Inode {
        try InodeCodec.encode(.tile(RegionID(rawValue: region), TileID(rawValue: id), .initial))
    }

    func testAtMostSixtyFourContentsAreKeptTheNewestAndEverySize() throws {
        let cache = ContentCache()
        let inodes = try (1...100).map { try tile(1, Int64($0)) }
        for (index, inode) in inodes.enumerated() { cache.store(Data("tile \(index)".utf8), for: inode) }
        XCTAssertEqual(inodes.filter { cache.content($0) != nil }, Array(inodes.suffix(cache.maxContents)))
        XCTAssertEqual(cache.content(inodes[99]), Data("tile 99".utf8))
        XCTAssertEqual(cache.size(inodes[0]), UInt64("tile 0".utf8.count), "a size outlives its content")
    }

    func testContentsKeepUnderAMebibyteAndNoneOverIt() throws {
        let cache = ContentCache()
        let large = Data(repeating: 7, count: 400_000)
        let inodes = try (1...3).map { try tile(1, Int64($0)) }
        for inode in inodes { cache.store(large, for: inode) }
        XCTAssertNil(cache.content(inodes[0]), "three would be over 1 MiB: the oldest went")
        XCTAssertEqual(cache.content(inodes[2]), large)
        let huge = try tile(1, 4)
        cache.store(Data(count: cache.maxFileBytes + 1), for: huge)
        XCTAssertNil(cache.content(huge))
        XCTAssertEqual(cache.size(huge), UInt64(cache.maxFileBytes + 1))
        XCTAssertEqual(cache.content(inodes[2]), large, "a content too large to keep evicts nothing")
    }

    func testForgettingAPackDropsItsContentsAndSizesOnly() throws {
        let cache = ContentCache()
        let (mine, other) = (try tile(1, 5), try tile(2, 5))
        cache.store(Data("mine".utf8), for: mine)
        cache.store(Data("other".utf8), for: other)
        cache.removeAll(of: RegionID(rawValue: 1))
        XCTAssertNil(cache.content(mine))
        XCTAssertNil(cache.size(mine))
        XCTAssertEqual(cache.content(other), Data("other".utf8))
    }

    func testTheReadThatReachesTheEndTakesTheContentAndItsSizeStays() throws {
        let cache = ContentCache()
        let inode = try tile(1, 7)
        let bytes = Data(repeating: 3, count: 200_000)
        cache.store(bytes, for: inode)
        XCTAssertEqual(cache.content(inode, readTo: 131_072), bytes, "a first part: the content stays for the rest")
        XCTAssertEqual(cache.content(inode, readTo: 262_144), bytes, "the read past the end gets it")
        XCTAssertNil(cache.content(inode), "and took it")
        XCTAssertNil(cache.content(inode, readTo: 262_144))
        XCTAssertEqual(cache.size(inode), 200_000)
        let empty = try tile(1, 8)
        cache.store(Data(), for: empty)
        XCTAssertEqual(cache.content(empty, readTo: 0), Data(), "an empty tile's read at 0 reaches its end")
        XCTAssertNil(cache.content(empty))
        cache.store(bytes, for: inode)
        cache.store(Data("tile".utf8), for: try tile(1, 9))
        XCTAssertEqual(cache.state.withLock { $0.contentBytes }, 200_004, "the bytes counted go down with a take")
    }

    /// Sizes sit in fixed slots, each inode in the one its number picks: the newer of two inodes in one slot
    /// replaces the older, so a size can be lost but never given to another inode.
    func testASizeSlotHoldsTheNewerOfTwoInodesAndNeverAnswersForTheOther() throws {
        let table = SizeTable(bits: 4)
        for id in 1...200 {
            let inode = try tile(1, Int64(id))
            table[inode] = UInt64(id)
            XCTAssertEqual(table[inode], UInt64(id))
        }
        let answered = try (1...200).filter { table[try tile(1, Int64($0))] != nil }
        XCTAssertEqual(answered.count, 16, "200 inodes in 16 slots: the last in each slot answers")
        for id in answered { XCTAssertEqual(table[try tile(1, Int64(id))], UInt64(id)) }
        XCTAssertNil(table[Inode(rawValue: 0)], "inode 0 is no node's")
        table.removeAll { InodeCodec.region(of: $0) == RegionID(rawValue: 1) }
        XCTAssertTrue(try (1...200).allSatisfy { table[try tile(1, Int64($0))] == nil })
    }
}
