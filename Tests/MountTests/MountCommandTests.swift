import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs mount` at its edges (issue 21): a busy mountpoint, a path holding a space, the dead
/// mount a killed daemon leaves, a file that is no database, and `-o ro`.
final class MountCommandTests: PackFSTestCase {
    var mounts: [String] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        try MountHelper.requireFUSE()
        XCTAssertEqual(try Packfs.run(["reset", db]).status, 0)
    }

    override func tearDown() {
        for path in mounts where MountHelper.isFUSE(path) {
            MountHelper.runTool("/usr/bin/fusermount3", ["-u", "-z", path])
        }
        super.tearDown()
    }

    var db: String { databasePath }

    /// A fresh empty directory to mount on.
    func mountpoint(_ name: String) throws -> String {
        let path = temp.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        mounts.append(path)
        return path
    }

    /// The pid of the `packfs mount` daemon serving `path` (its arguments name the path).
    func daemon(of path: String) -> Int32? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.first { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.count > 2 && arguments[1] == "mount" && arguments.contains(path)
        }
    }

    func testAPathWithASpaceMountsInTheBackground() throws {
        let path = try mountpoint("sp mnt")
        let mounted = try Packfs.run(["mount", db, path])
        XCTAssertEqual(mounted.status, 0, mounted.text)
        XCTAssertTrue(MountHelper.isFUSE(path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path).sorted(), ["packs", "status.json"])
    }

    func testASecondMountOnTheSameDirectoryFailsAndSaysWhy() throws {
        let path = try mountpoint("mnt")
        XCTAssertEqual(try Packfs.run(["mount", db, path]).status, 0)
        let junk = temp.path("junk.db")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: junk))
        for second in [db, junk] {
            let again = try Packfs.run(["mount", second, path])
            XCTAssertEqual(again.status, 1, again.text)
            XCTAssertTrue(again.text.contains("already a mount point"), again.text)
            XCTAssertEqual(again.text.filter { $0 == "\n" }.count, 1, again.text)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: junk)), Data("not a database".utf8))
    }

    func testAFileThatIsNoDatabaseFailsTheBackgroundMount() throws {
        let path = try mountpoint("mnt")
        let junk = temp.path("junk.db")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: junk))
        let mounted = try Packfs.run(["mount", junk, path])
        XCTAssertEqual(mounted.status, 1, mounted.text)
        XCTAssertTrue(mounted.text.contains("not an SQLite database"), mounted.text)
        XCTAssertFalse(MountHelper.isFUSE(path))
    }

    func testAMountWhoseDaemonWasKilledIsDetachedAndMountedAgain() throws {
        let path = try mountpoint("mnt")
        XCTAssertEqual(try Packfs.run(["mount", db, path]).status, 0)
        let pid = try XCTUnwrap(daemon(of: path), "the daemon runs with the absolute mountpoint in its arguments")
        kill(pid, SIGKILL)
        XCTAssertTrue(eventually(timeout: 30) { kill(pid, 0) != 0 })
        var status = stat()
        XCTAssertEqual(errnoOf { stat(path, &status) }, ENOTCONN, "a dead mount is left behind")
        let again = try Packfs.run(["mount", db, path])
        XCTAssertEqual(again.status, 0, again.text)
        XCTAssertTrue(again.text.contains("detached the mount of a PackFS daemon that had died"), again.text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path).sorted(), ["packs", "status.json"])
    }

    func testReadOnlyMountsRefuseRegionFilesAndLeaveTheFile() throws {
        let path = try mountpoint("mnt")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let mounted = try Packfs.run(["mount", db, path, "-o", "ro"])
        XCTAssertEqual(mounted.status, 0, mounted.text)
        XCTAssertEqual(errnoOf { open(path + "/packs/x.region", O_CREAT | O_WRONLY, 0o644) }, EROFS)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "a read-only mount never writes")
        MountHelper.runTool("/usr/bin/fusermount3", ["-u", path])
        XCTAssertTrue(eventually(timeout: 30) { daemon(of: path) == nil })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before)
    }
}
