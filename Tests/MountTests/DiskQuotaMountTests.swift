import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs mount --disk-quota`: a pack written into the mount stops in `error` at the quota, as
/// progress.json says; status.json shows the file's pages in use and free and the quota; with an
/// ambient limit of 0, `rm -r` of the pack gives its pages back to the file system.
final class DiskQuotaMountTests: XCTestCase {
    var mount: MountHelper!
    var server: TestServer!
    var db: String { mount.directory.path("packs.db") }
    var packs: String { mount.path + "/packs" }
    /// Less than the Helsinki pack needs (about 2.4 MB of pages), more than an empty database.
    let quota = 1 << 20

    override func setUpWithError() throws {
        try MountHelper.requireFUSE()
        mount = try MountHelper()
        server = try TestServer.nginx()
    }

    override func tearDown() {
        mount?.unmount()
        server?.stop()
    }

    func testAPackOverTheQuotaStopsInErrorAndStatusShowsTheDisk() throws {
        let packfs = BuiltProducts.executable("packfs").path
        try OfflineDatabase.open(path: db).close()
        XCTAssertEqual(try Command.run(packfs, ["cache", db, "limit", "0"]).status, 0)
        let mounted = try Command.run(packfs, ["mount", db, mount.path, "--disk-quota", "1M"])
        XCTAssertEqual(mounted.status, 0, mounted.text)
        let region = mount.directory.path("helsinki.json")
        try """
            {"style": "\(server.baseURL)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        XCTAssertEqual(try Command.run("/bin/cp", [region, packs + "/helsinki.region"]).status, 0)

        var progress: JSONValue?
        XCTAssertTrue(eventually(timeout: 120) {
            progress = FileManager.default.contents(atPath: packs + "/helsinki/progress.json").flatMap(JSONValue.parse)
            return progress?["state"]?.string == "error"
        }, "\(String(describing: progress))")
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
