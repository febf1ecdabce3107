import Foundation
import PackStore
import TestSupport
import XCTest

/// mount-scripts/: `mount -t fuse.packfs` through mount.packfs, and umount.packfs waiting for the
/// daemon to close the database.
final class MountScriptTests: MountpointTestCase {
    let helper = "/sbin/mount.fuse.packfs"

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: helper)
        super.tearDown()
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

    /// `-o ro` reaches the kernel (a read-only mount), PackFS's own options written with `_`
    /// reach the daemon, and options for mount(8) itself stay behind.
    func testMountHelperPassesReadOnlyAndPackFSOptions() throws {
        XCTAssertEqual(try Packfs.run(["reset", db]).status, 0, "a read-only mount needs an existing database")
        let mounted = try run(script("mount.packfs"), [
            db, mount.path, "-o", "ro,nofail,concurrency=4,threads=3,allow_host=a,allow_host=b,web_base=http://127.0.0.1:1/packfs",
        ])
        XCTAssertEqual(mounted.status, 0, mounted.text)
        let table = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        let line = try XCTUnwrap(table.split(separator: "\n").first { $0.contains(" \(mount.path) ") })
        XCTAssertTrue(line.split(separator: " ")[5].split(separator: ",").contains("ro"), String(line))
        XCTAssertEqual(errnoOf { open(mount.path + "/packs/x.region", O_CREAT | O_WRONLY, 0o644) }, EROFS)
        let arguments = try XCTUnwrap(daemonArguments(mount.path))
        for expected in [["--concurrency", "4"], ["--threads", "3"], ["--allow-host", "a"], ["--allow-host", "b"], ["-o", "ro"],
                         ["--web-base", "http://127.0.0.1:1/packfs"]] {
            XCTAssertTrue(arguments.indices.contains { Array(arguments[$0...].prefix(2)) == expected }, "\(expected) in \(arguments)")
        }
        XCTAssertFalse(arguments.contains { $0.contains("nofail") }, "\(arguments)")
    }

    /// umount.packfs given a relative path waits for the daemon too.
    func testUnmountScriptWithARelativePathWaitsForTheDaemon() throws {
        XCTAssertEqual(try Packfs.run(["mount", db, mount.path]).status, 0)
        XCTAssertNotNil(daemonArguments(mount.path))
        let parent = URL(fileURLWithPath: mount.path).deletingLastPathComponent().path
        let unmounted = try Command.run("/bin/sh", ["-c", "cd \"$1\" && \"$2\" mnt", "sh", parent, script("umount.packfs")])
        XCTAssertEqual(unmounted.status, 0, unmounted.text)
        XCTAssertNil(daemonArguments(mount.path), "the daemon had exited when umount.packfs returned")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"))
    }

    /// The arguments of the `packfs mount` daemon whose arguments name `path`.
    private func daemonArguments(_ path: String) -> [String]? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        for pid in pids {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.count > 2, arguments[1] == "mount", arguments.contains(path) { return arguments }
        }
        return nil
    }

    func testMountHelperRefusesUnknownArguments() throws {
        let bad = try run(script("mount.packfs"), [db, mount.path, "--bogus"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.text.contains("unknown argument"), bad.text)
        XCTAssertFalse(mount.isMounted)
    }
}
