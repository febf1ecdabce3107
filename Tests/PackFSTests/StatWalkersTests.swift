@testable import PackFS
import XCTest

/// Who gets attributes with a tile listing: the processes that looked tiles up, the latest
/// `capacity` of them.
final class StatWalkersTests: XCTestCase {
    func testRemembersTheLatestProcessesThatLookedUp() {
        let walkers = StatWalkers(capacity: 2)
        XCTAssertFalse(walkers.wantsAttributes(10))
        walkers.noteLookup(by: 10)
        walkers.noteLookup(by: 10)
        walkers.noteLookup(by: 11)
        XCTAssertTrue(walkers.wantsAttributes(10))
        XCTAssertTrue(walkers.wantsAttributes(11))
        walkers.noteLookup(by: 12)
        XCTAssertFalse(walkers.wantsAttributes(10), "the oldest goes")
        XCTAssertTrue(walkers.wantsAttributes(12))
        // Gone from the list, it is gone from the lock-free fast path too: noted again.
        walkers.noteLookup(by: 10)
        XCTAssertTrue(walkers.wantsAttributes(10))
        XCTAssertFalse(walkers.wantsAttributes(11))
    }
}
