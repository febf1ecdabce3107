import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// A mount whose database's disk fills up (a tmpfs of its own): a change that cannot be stored
/// fails with ENOSPC and changes nothing, and an unmount that cannot fold the log back into the
/// file says so in the log; once there is room the next open applies the log.
final class FullDiskMountTests: DaemonMountTestCase {
    var scratch: ScratchFilesystem?

    /// No origin: the pack's download fails, which is not what this is about.
    override class func makeServer() throws -> TestServer? { nil }

    override func tearDown() {
        super.tearDown()
        scratch?.remove()
    }

    func testAFullDiskRefusesChangesWithENOSPCAndTheUnmountSaysWhereTheChangesAre() throws {
        guard getuid() == 0 else {
            if isCI { return XCTFail("not root: cannot mount a tmpfs") }
            throw XCTSkip("mounting a tmpfs needs root")
        }
        let scratch = try ScratchFilesystem(at: temp.path("scratch"), size: "1m")
        self.scratch = scratch
        let database = scratch.path + "/packs.db"
        XCTAssertEqual(try Packfs.run(["reset", database]).status, 0)
        let log = temp.path("mount.log")
        try mountPackFS(["--log", log], database: database)
        let region = #"{"style": "http://127.0.0.1:9/s.json", "bounds": [24.93, 60.16, 24.96, 60.18], "maxzoom": 1}"#
        try Data(region.utf8).write(to: URL(fileURLWithPath: packs + "/kept.region"))
        try scratch.fill()
        XCTAssertEqual(errnoOf { unlink(packs + "/kept.region") }, ENOSPC)
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/kept"), "the refused removal changed nothing")
        MountHelper.runTool("/usr/bin/fusermount3", ["-u", mount.path])
        XCTAssertTrue(eventually(timeout: 60) {
            (try? String(contentsOfFile: log, encoding: .utf8))?.contains("could not be made one file again") ?? false
        }, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "no log")
        XCTAssertTrue(FileManager.default.fileExists(atPath: database + "-wal"), "the log keeps the last changes")
        try FileManager.default.removeItem(atPath: scratch.path + "/filler")
        let list = try Packfs.run(["list", database, "--json"])
        XCTAssertEqual(JSONValue.parse(Data(list.text.utf8))?.array?.compactMap { $0["name"]?.string }, ["kept"], list.text)
    }
}
