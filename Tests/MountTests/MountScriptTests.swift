import Foundation
import PackStore
import TestSupport
import XCTest

/// mount-scripts/: `mount -t fuse.packfs` through mount.packfs, and umount.packfs waiting for the
/// daemon to close the database.
final class MountScriptTests: XCTestCase {
    var mount: MountHelper!
    let helper = "/sbin/mount.fuse.packfs"
    var db: String { mount.directory.path("packs.db") }

    override func setUpWithError() throws {
        try MountHelper.requireFUSE()
        mount = try MountHelper()
    }

    override func tearDown() {
        mount?.unmount()
        try? FileManager.default.removeItem(atPath: helper)
    }

    private func script(_ name: String) -> String {
        ProjectPaths.root.appendingPathComponent("mount-scripts").appendingPathComponent(name).path
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        try Command.run(executable, arguments, environment: ["PACKFS": Packfs.path])
    }

    func testMountTypeFusePackfsAndUnmountScript() throws {
        guard FileManager.default.isWritableFile(atPath: "/sbin") else {
            if isCI { return XCTFail("/sbin is not writable: cannot install mount.fuse.packfs") }
            throw XCTSkip("/sbin is not writable (not root)")
        }
        try? FileManager.default.removeItem(atPath: helper)
        try FileManager.default.createSymbolicLink(atPath: helper, withDestinationPath: script("mount.packfs"))
        let mounted = try run("/bin/mount", ["-t", "fuse.packfs", db, mount.path, "-o", "defaults,_netdev,nofail"])
        XCTAssertEqual(mounted.status, 0, mounted.text)
        XCTAssertTrue(mount.isMounted)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount.path).sorted(), ["packs", "status.json"])
        let unmounted = try run(script("umount.packfs"), [mount.path])
        XCTAssertEqual(unmounted.status, 0, unmounted.text)
        XCTAssertFalse(mount.isMounted)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "the daemon closed the database before umount.packfs returned")
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).packs().count, 0)
    }

    func testMountHelperRefusesUnknownArguments() throws {
        let bad = try run(script("mount.packfs"), [db, mount.path, "--bogus"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.text.contains("unknown argument"), bad.text)
        XCTAssertFalse(mount.isMounted)
    }
}
