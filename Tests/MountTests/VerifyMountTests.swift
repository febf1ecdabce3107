import Foundation
import TestSupport
import XCTest

/// `packfs verify` only reads: it runs while the daemon holds the database mounted, and finds
/// the pack as sound as unmounted, while the mount serves the same pack.
final class VerifyMountTests: DaemonMountTestCase {
    override class func makeServer() throws -> TestServer? { nil }

    func testVerifyWorksWhileTheDatabaseIsMounted() throws {
        let fixture = try MartinFixtures.build("zoomed_world_cities", in: temp)
        XCTAssertEqual(try packfs(["import", db, fixture, "--name", "cities"]).status, 0)
        try mountPackFS()
        XCTAssertEqual(waitForState("cities"), "complete")
        let outcome = try packfs(["verify", db, "cities"])
        XCTAssertEqual(outcome.status, 0, outcome.text)
        XCTAssertTrue(outcome.text.contains("\(MartinFixtures.hashes["zoomed_world_cities"] ?? "?") (as recorded)"), outcome.text)
        // The mount still serves the pack.
        XCTAssertNotNil(FileManager.default.contents(atPath: "\(packs)/cities/progress.json"))
    }
}
