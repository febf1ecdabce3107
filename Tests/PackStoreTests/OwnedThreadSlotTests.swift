import Basics
import Foundation
import XCTest

/// `OwnedThreadSlot`: each thread's own object, kept alive by the slot, told and released when its thread exits
/// (the thread readers, the decompressors and the held notifications live there).
final class OwnedThreadSlotTests: XCTestCase {
    /// Reports being told and being freed: once its thread has ended, the object is gone.
    final class Tracked: ThreadExiting, Sendable {
        let name: String
        let onTold: @Sendable () -> Void
        let onFreed: @Sendable () -> Void
        init(_ name: String, onTold: @escaping @Sendable () -> Void = {}, onFreed: @escaping @Sendable () -> Void = {}) {
            self.name = name
            self.onTold = onTold
            self.onFreed = onFreed
        }
        func threadDidExit() { onTold() }
        deinit { onFreed() }
    }

    func testEachThreadSeesItsOwnObjectAndTheSlotKeepsItAlive() throws {
        let slot = OwnedThreadSlot<Tracked>()
        XCTAssertTrue(slot.isUsable)
        XCTAssertNil(slot.current)
        weak var released: Tracked?
        do {
            let mine = Tracked("main")
            released = mine
            XCTAssertTrue(slot.set(mine))
        }
        XCTAssertEqual(slot.current?.name, "main", "kept alive by the slot alone")
        let other = expectation(description: "another thread")
        Thread.detachNewThread {
            XCTAssertNil(slot.current, "another thread has none")
            other.fulfill()
        }
        wait(for: [other], timeout: 20)
        // Replacing or clearing releases without telling: the object is dropped, its thread goes on.
        let told = LockedState(false)
        let second = Tracked("second", onTold: { told.withLock { $0 = true } })
        XCTAssertTrue(slot.set(second))
        XCTAssertNil(released)
        XCTAssertTrue(slot.set(nil))
        XCTAssertNil(slot.current)
        XCTAssertFalse(told.withLock { $0 })
    }

    func testAThreadsObjectIsToldThenReleasedAtItsExit() throws {
        let slot = OwnedThreadSlot<Tracked>()
        let told = expectation(description: "told at the thread's exit")
        let freed = expectation(description: "released after")
        Thread.detachNewThread {
            XCTAssertTrue(slot.set(Tracked("thread", onTold: { told.fulfill() }, onFreed: { freed.fulfill() })))
        }
        wait(for: [told, freed], timeout: 20, enforceOrder: true)
    }
}
