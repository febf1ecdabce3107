import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs mount --disk-quota`: a pack written into the mount stops in `error` at the quota, as
/// progress.json says; status.json shows the file's pages in use and free and the quota; with an
/// ambient limit of 0, `rm -r` of the pack gives its pages back to the file system.
final class DiskQuotaMountTests: DaemonMountTestCase {
    /// Less than the Helsinki pack needs (about 2.4 MB of pages), more than an empty database.
    let quota = 1 << 20

    func testAPackOverTheQuotaStopsInErrorAndStatusShowsTheDisk() throws {
        try OfflineDatabase.open(path: db).close()
        XCTAssertEqual(try packfs(["cache", db, "limit", "0"]).status, 0)
        try mountPackFS(["--disk-quota", "1M"])
        try copyRegion(try regionFile("helsinki.json"), to: "helsinki")

        waitForState("helsinki", ["error"])
        let progress = self.progress("helsinki")
        XCTAssertTrue(progress?["error"]?.string?.contains("disk quota reached") ?? false, "\(String(describing: progress))")
        XCTAssertGreaterThan(progress?["completed_resources"]?.number ?? 0, 0, "what fits is kept")

        let status = try XCTUnwrap(FileManager.default.contents(atPath: mount.path + "/status.json").flatMap(JSONValue.parse))
        XCTAssertEqual(status["disk"]?["quota"]?.number, Double(quota))
        let used = try XCTUnwrap(status["disk"]?["used_bytes"]?.number)
        let file = try XCTUnwrap(status["disk"]?["file_bytes"]?.number)
        XCTAssertLessThanOrEqual(used, Double(quota))
        XCTAssertGreaterThan(used, Double(quota) / 2, "the pack filled most of it")

        XCTAssertEqual(try Command.run("/bin/rm", ["-r", packs + "/helsinki"]).status, 0)
        XCTAssertTrue(eventually(timeout: 60) {
            let after = FileManager.default.contents(atPath: mount.path + "/status.json").flatMap(JSONValue.parse)
            return (after?["disk"]?["file_bytes"]?.number ?? .infinity) < file / 2
        }, "the removal gave the pages back to the file system")
    }
}
