import Foundation
@testable import PackFS
import PackStore
import XCTest

/// The contents a lookup keeps for the read after it: a short list, bounded in count and bytes, oldest
/// out first; sizes outlive them.
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
}
