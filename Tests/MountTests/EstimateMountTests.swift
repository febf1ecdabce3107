import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// The estimate in `progress.json` on a real mount served by the `packfs` binary: present while
/// the pack downloads (whenever its counts are precise), its tile count the plan's, and for a
/// pack whose sources the database already holds tiles of, bytes close to what it then stores.
final class EstimateMountTests: DaemonMountTestCase {
    /// Every answer 50 ms late: the first pack takes seconds, long enough to watch.
    override class func makeServer() throws -> TestServer? {
        try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
    }

    func testProgressShowsTheEstimateWhileDownloadingAndAfter() throws {
        try mountPackFS(["--concurrency", "2"])
        // A pack of the south-west quarter first: nothing stored yet, so its tiles' sizes are unknown.
        try copyRegion(try regionFile("quarter.json", bounds: [24.93, 60.16, 24.945, 60.17]), to: "quarter")
        var seen: [JSONValue] = []
        let done = eventually(timeout: 120) {
            guard let progress = self.progress("quarter") else { return false }
            seen.append(progress)
            return progress["state"]?.string == "complete"
        }
        XCTAssertTrue(done, "quarter: \(seen.last ?? .null)")
        let during = seen.filter { $0["state"] == .string("active") && $0["estimate"] != nil }
        XCTAssertFalse(during.isEmpty, "an estimate while downloading, in \(seen.count) readings")
        for progress in seen where progress["required_resources_is_precise"] == .bool(true) {
            let estimate = try XCTUnwrap(progress["estimate"], "precise counts come with their estimate: \(progress)")
            XCTAssertEqual(estimate["tiles"], progress["required_tiles"])
            XCTAssertEqual(estimate["required_resources"], progress["required_resources"])
        }
        let first = try XCTUnwrap(during.first?["estimate"])
        XCTAssertEqual(first["unknown_tiles"], first["tiles"], "a fresh database knows no tile sizes")
        XCTAssertEqual(first["bytes"], .null, "an unknown size is shown as unknown, never as a number")
        XCTAssertNotNil(first["known_bytes"]?.number)
        // Once the run is over its estimate is made again from what it stored.
        let ended = try XCTUnwrap(seen.last)
        let again = try XCTUnwrap(ended["estimate"])
        XCTAssertEqual(again["unknown_tiles"], .number(0), "\(again)")
        let endedBytes = try XCTUnwrap(again["bytes"]?.number), endedStored = try XCTUnwrap(ended["completed_bytes"]?.number)
        XCTAssertTrue((0.75...1.25).contains(endedBytes / endedStored), "estimated \(endedBytes), stored \(endedStored)")

        // The whole region next: its estimate comes from the quarter's stored tiles and resources.
        try copyRegion(try regionFile("helsinki.json"), to: "helsinki")
        XCTAssertTrue(eventually(timeout: 120) { progress("helsinki")?["state"] == .string("complete") })
        let final = try XCTUnwrap(progress("helsinki"))
        let estimate = try XCTUnwrap(final["estimate"])
        XCTAssertEqual(estimate["tiles"], .number(25))
        XCTAssertEqual(estimate["unknown_tiles"], .number(0))
        XCTAssertEqual(estimate["unknown_resources"], .number(0))
        let bytes = try XCTUnwrap(estimate["bytes"]?.number), stored = try XCTUnwrap(final["completed_bytes"]?.number)
        print(String(format: "progress.json estimate: %.0f bytes for %.0f stored, ratio %.3f", bytes, stored, bytes / stored))
        XCTAssertTrue((0.75...1.25).contains(bytes / stored), "estimated \(bytes), stored \(stored)")
        // The extended attribute is the same file.
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let size = XAttr.get(mount.path + "/packs/helsinki.region", "user.packfs.progress", &buffer, buffer.count)
        XCTAssertEqual(JSONValue.parse(Data(buffer.prefix(max(0, size))))?["estimate"], estimate)
    }

}
