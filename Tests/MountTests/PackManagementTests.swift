import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Managing packs with ordinary tools on a real mount served by the `packfs` binary: cp, mv,
/// touch, rm, rm -r, xattrs; downloads run inside the daemon.
final class PackManagementTests: DaemonMountTestCase {
    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, text: String) {
        try Command.run(executable, arguments)
    }

    /// A region file of the Helsinki area to `maxZoom`, with metadata.
    func helsinki(_ name: String, maxZoom: Int = 14) throws -> String {
        try regionFile(name, maxZoom: maxZoom, extra: #""metadata": {"trip": "test"}"#)
    }

    /// Packs a (to z14) and b (to z10) of the same area, made with cp and waited for: b's tiles
    /// are all a's too.
    func copyInPacksAAndB() throws {
        try copyRegion(try helsinki("a.json"), to: "a")
        try copyRegion(try helsinki("b.json", maxZoom: 10), to: "b")
        waitForState("a")
        waitForState("b")
    }

    func xattr(_ path: String, _ name: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let size = XAttr.get(path, name, &buffer, buffer.count)
        return size < 0 ? nil : String(decoding: buffer.prefix(size), as: UTF8.self)
    }

    func testCopyARegionFileDownloadsThePack() throws {
        try mountPackFS()
        try copyRegion(try helsinki("region.json"), to: "helsinki")
        waitForState("helsinki")
        let tiles = try FileManager.default.subpathsOfDirectory(atPath: packs + "/helsinki")
            .filter { $0.range(of: #"^\d+/\d+/\d+\.pbf$"#, options: .regularExpression) != nil }
        XCTAssertEqual(tiles.count, 19)
        for tile in tiles {
            XCTAssertEqual(FileManager.default.contents(atPath: packs + "/helsinki/" + tile),
                           try server.expectedContent("/tiles/helsinki/" + tile), tile)
        }
        XCTAssertEqual(xattr(packs + "/helsinki.region", "user.packfs.state"), "complete")
        let progress = JSONValue.parse(Data((xattr(packs + "/helsinki.region", "user.packfs.progress") ?? "").utf8))
        XCTAssertEqual(progress?["completed_resources"], .number(322))
        // Suspending a complete pack would change nothing: refused (EINVAL), not pretended.
        let inactive = Array("inactive".utf8)
        XCTAssertEqual(XAttr.set(packs + "/helsinki.region", "user.packfs.state", inactive, inactive.count, 0), -1)
        XCTAssertEqual(errno, EINVAL)
        XCTAssertEqual(xattr(packs + "/helsinki.region", "user.packfs.state"), "complete")
        let cat = try run("/bin/cat", [packs + "/helsinki.region"])
        XCTAssertTrue(cat.text.contains("\"maxzoom\": 14"), cat.text)
    }

    func testWritingAChangedDefinitionConverges() throws {
        try mountPackFS()
        try copyRegion(try helsinki("region.json"), to: "helsinki")
        waitForState("helsinki")
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/helsinki/14"))
        let before = try server.settledAccessLog().count
        try copyRegion(try helsinki("smaller.json", maxZoom: 10), to: "helsinki")
        XCTAssertTrue(eventually(timeout: 30) { !FileManager.default.fileExists(atPath: packs + "/helsinki/14") })
        waitForState("helsinki")
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/helsinki/11"), "tiles above z10 left the pack")
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/helsinki/10"))
        XCTAssertEqual(try server.settledAccessLog().count, before, "nothing stored was fetched again")
        XCTAssertTrue(try String(contentsOfFile: packs + "/helsinki.region", encoding: .utf8).contains("\"maxzoom\": 10"))
    }

    func testTouchServesChangedBytesThoughTheKernelCachedTheOldOnes() throws {
        try mountPackFS()
        try copyRegion(try helsinki("region.json"), to: "helsinki")
        waitForState("helsinki")
        let tile = packs + "/helsinki/14/9327/4742.pbf"
        let old = try XCTUnwrap(FileManager.default.contents(atPath: tile))
        XCTAssertEqual(FileManager.default.contents(atPath: tile), old, "now in the kernel's page cache")
        // The origin changes the tile (nginx serves a copy; its ETag follows mtime and size).
        let origin = server.directory.path("world/tiles/helsinki/14/9327/4742.pbf")
        // Still a vector tile (the downloader checks): one more layer, named for the change.
        let label = Data("changed at the origin".utf8)
        let new = old + Data([0x1A, UInt8(label.count + 2), 0x0A, UInt8(label.count)]) + label
        try new.write(to: URL(fileURLWithPath: origin))
        let before = try server.accessLog().count
        XCTAssertEqual(try run("/usr/bin/touch", [packs + "/helsinki.region"]).status, 0)
        XCTAssertTrue(try eventually(timeout: 30) { try server.accessLog().count >= before + 322 }, "the refresh ran")
        waitForState("helsinki")
        // The kernel keeps a tile's pages for an hour: only the daemon's notification, sent
        // after the refresh's last batch, can bring the new bytes before then.
        XCTAssertTrue(eventually(timeout: 30) { FileManager.default.contents(atPath: tile) == new }, "the new bytes")
    }

    func testABadRegionFileFailsTheCopyAndExplainsWhy() throws {
        try mountPackFS()
        let bad = temp.path("bad.json")
        try #"{"style": "file:///etc/passwd", "bounds": [0, 0, 1, 1]}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let cp = try run("/bin/cp", [bad, packs + "/bad.region"])
        XCTAssertNotEqual(cp.status, 0)
        XCTAssertTrue(cp.text.contains("Invalid argument"), cp.text)
        let reason = try String(contentsOfFile: packs + "/bad.error", encoding: .utf8)
        XCTAssertTrue(reason.contains("style"), reason)
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/bad"))
        // NUL bytes start no JSON text: the copy fails as for other junk.
        let zeros = temp.path("zeros.bin")
        try Data(count: 4096).write(to: URL(fileURLWithPath: zeros))
        let nul = try run("/bin/cp", [zeros, packs + "/zeros.region"])
        XCTAssertNotEqual(nul.status, 0)
        XCTAssertTrue(nul.text.contains("Invalid argument"), nul.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/zeros.error"))
        // A name no pack may have says why in <name>.error.
        let dots = try run("/bin/cp", [bad, packs + "/..region"])
        XCTAssertTrue(dots.text.contains("Invalid argument"), dots.text)
        XCTAssertTrue(try String(contentsOfFile: packs + "/..error", encoding: .utf8).contains("starts with '.'"))
        // A name over 248 bytes makes a file name over 255: the lookup already says so.
        let long = try run("/bin/cp", [bad, packs + "/" + String(repeating: "n", count: 249) + ".region"])
        XCTAssertTrue(long.text.contains("File name too long"), long.text)
        unmountPackFS()
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).packs().count, 0)
    }

    /// Writing over an existing region file (no OPEN reaches the daemon): text that can never be
    /// a good definition fails the write, so `cp` says so; text that stops short fails nothing
    /// (close() sends the daemon nothing) and is judged once it has rested. Either way the pack
    /// keeps its definition.
    func testOverwritingARegionFileWithBadOrUnfinishedText() throws {
        try mountPackFS()
        try copyRegion(try helsinki("a.json", maxZoom: 2), to: "a")
        waitForState("a")
        let before = try String(contentsOfFile: packs + "/a.region", encoding: .utf8)
        let bad = temp.path("bad.json")
        try #"{"style": "\#(server.baseURL)/styles/bright.json", "bounds": [0, 0, 1, 1], "maxzom": 3}"#
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let cp = try run("/bin/cp", [bad, packs + "/a.region"])
        XCTAssertNotEqual(cp.status, 0)
        XCTAssertTrue(cp.text.contains("Invalid argument"), cp.text)
        XCTAssertTrue(try String(contentsOfFile: packs + "/a.error", encoding: .utf8).contains("maxzom"))
        let unfinished = try run("/bin/sh", ["-c", #"printf '{"style": ' > "$0""#, packs + "/a.region"])
        XCTAssertEqual(unfinished.status, 0, unfinished.text)
        // The error file changes a moment before the draft goes: wait for both.
        XCTAssertTrue(try eventually(timeout: 10) {
            try !String(contentsOfFile: packs + "/a.error", encoding: .utf8).contains("maxzom")
                && String(contentsOfFile: packs + "/a.region", encoding: .utf8) == before
        }, "judged after its rest, the definition shown again")
        unmountPackFS()
        let pack = try OfflineDatabase.open(path: db, mode: .readOnly).pack(named: "a")
        XCTAssertEqual(pack.definition?.maxZoom, 2)
    }

    /// `sed -i` writes a temporary file beside the region file, gives it the old mode, and renames
    /// it over the region file: the temporary file is a scratch file of `packs/`, and the rename
    /// redefines the pack (issue 21, item 15). A refused edit fails the rename and says why; an
    /// editor's swap file is written, read and removed like a file on a disk.
    func testSedInPlaceRedefinesThePackThroughAScratchFile() throws {
        try mountPackFS()
        try copyRegion(try helsinki("a.json", maxZoom: 1), to: "a")
        waitForState("a")
        let text = try String(contentsOfFile: packs + "/a.region", encoding: .utf8)
        XCTAssertTrue(text.contains("\"maxzoom\": 1"), text)
        let sed = try run("/bin/sed", ["-i", "s/\"maxzoom\": 1/\"maxzoom\": 2/", packs + "/a.region"])
        XCTAssertEqual(sed.status, 0, sed.text)
        XCTAssertTrue(try String(contentsOfFile: packs + "/a.region", encoding: .utf8).contains("\"maxzoom\": 2"))
        waitForState("a")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs).sorted(), ["a", "a.region"], "no scratch file left")

        let refused = try run("/bin/sed", ["-i", "s/\"maxzoom\": 2/\"maxzoom\": 99/", packs + "/a.region"])
        XCTAssertNotEqual(refused.status, 0, refused.text)
        XCTAssertTrue(try String(contentsOfFile: packs + "/a.error", encoding: .utf8).contains("zoom"))
        XCTAssertTrue(try String(contentsOfFile: packs + "/a.region", encoding: .utf8).contains("\"maxzoom\": 2"), "kept")
        XCTAssertTrue(refused.text.contains("Invalid argument"), refused.text)
        // sed removes its file when the rename fails, as the scratch file lets it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs).sorted(), ["a", "a.error", "a.region"])
        let scratch = packs + "/.a.region.swp"
        try Data("draft".utf8).write(to: URL(fileURLWithPath: scratch))
        XCTAssertEqual(FileManager.default.contents(atPath: scratch), Data("draft".utf8), "an editor's swap file keeps its bytes")
        XCTAssertEqual(try run("/bin/rm", [scratch]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch))
        unmountPackFS()
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).pack(named: "a").definition?.maxZoom, 2)
    }

    func testRenameTouchRemoveAndRecursiveRemove() throws {
        try mountPackFS()
        try copyInPacksAAndB()
        let mv = try run("/bin/mv", [packs + "/a.region", packs + "/renamed.region"])
        XCTAssertEqual(mv.status, 0, mv.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/renamed/style.json"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/a"))

        let before = try server.accessLog().count
        XCTAssertEqual(try run("/usr/bin/touch", [packs + "/renamed.region"]).status, 0)
        XCTAssertTrue(try eventually(timeout: 30) { try server.accessLog().count >= before + 322 })
        let revalidations = Array(try server.settledAccessLog().dropFirst(before))
        XCTAssertEqual(revalidations.count, 322, "touch revalidated every resource")
        XCTAssertEqual(Set(revalidations.map(\.status)), [304])

        let rm = try run("/bin/rm", ["-rf", packs + "/b"])
        XCTAssertEqual(rm.status, 0, rm.text)
        XCTAssertEqual(rm.text, "", "rm -r prints nothing")
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/b.region"))
        XCTAssertEqual(try run("/bin/rm", [packs + "/renamed.region"]).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs), [])
        unmountPackFS()
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).packs().count, 0)
    }

    /// `rm -r` (no -f, which hides ENOENT) of a pack on a mount with `--web-base`: web-style.json
    /// is made from style.json, and is listed first, so it is removed before the style goes.
    func testRecursiveRemoveWithAWebBaseIsOneGo() throws {
        try mountPackFS(["--web-base", "http://127.0.0.1:9/packfs"])
        try copyRegion(try helsinki("region.json", maxZoom: 10), to: "web")
        waitForState("web")
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/web/web-style.json"))
        let rm = try run("/bin/rm", ["-r", packs + "/web"])
        XCTAssertEqual(rm.status, 0, rm.text)
        XCTAssertEqual(rm.text, "", "rm -r prints nothing")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs), [])
    }

    func testSharedTilesSurviveRemovalOfOnePack() throws {
        try mountPackFS()
        try copyInPacksAAndB()
        XCTAssertEqual(try run("/bin/rm", ["-r", "-f", packs + "/a"]).status, 0)
        let shared = packs + "/b/10/582/296.pbf"
        XCTAssertEqual(FileManager.default.contents(atPath: shared), try server.expectedContent("/tiles/helsinki/10/582/296.pbf"))
        unmountPackFS()
        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        XCTAssertEqual(try database.packs().map(\.name), ["b"])
        XCTAssertEqual(try database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
    }

    /// SIGTERM and SIGINT to a foreground daemon in the middle of a download: it unmounts,
    /// suspends the download, records it for resumption and leaves one self-contained file.
    func testSIGTERMAndSIGINTEndTheDaemonCleanly() throws {
        server.stop()
        server = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
        for signal in [SIGTERM, SIGINT] {
            let daemon = Process()
            daemon.executableURL = URL(fileURLWithPath: Packfs.path)
            daemon.arguments = ["mount", "-f", db, mount.path, "--concurrency", "2"]
            let start = try server.arrivals().count
            try daemon.run()
            XCTAssertTrue(eventually(timeout: 10) { mount.isMounted })
            // SIGTERM's daemon gets a new pack; SIGINT's resumes it: either way, a download under way.
            if signal == SIGTERM { try copyRegion(try helsinki("region.json"), to: "helsinki") }
            XCTAssertTrue(try eventually { try server.arrivals().count >= start + 10 }, "a download under way")
            kill(daemon.processIdentifier, signal)
            // With a deadline: a daemon that ignored the signal fails the test instead of hanging it.
            guard eventually(timeout: 120, { !daemon.isRunning }) else {
                kill(daemon.processIdentifier, SIGKILL)
                daemon.waitUntilExit()
                return XCTFail("the daemon did not end on signal \(signal)")
            }
            XCTAssertEqual(daemon.terminationStatus, 0, "signal \(signal)")
            XCTAssertFalse(mount.isMounted, "signal \(signal)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "DELETE journal mode again")
            let database = try OfflineDatabase.open(path: db, mode: .readOnly)
            let pack = try database.pack(named: "helsinki")
            XCTAssertEqual(try database.status(of: pack.id).state, .active, "recorded for resumption")
            XCTAssertLessThan(try database.progress(of: pack.id).completedResources, 322)
            try database.close()
        }
    }

    /// `-o allow_other` lets other users read (the kernel checks the modes: default_permissions)
    /// but not change packs; without it they get nothing.
    func testAllowOtherLetsOtherUsersReadButNotChange() throws {
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temp.url.path)
        let region = try helsinki("a.json", maxZoom: 2)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: region)
        try mountPackFS(["-o", "allow_other"])
        try copyRegion(region, to: "a")
        waitForState("a")
        let read = try run("/usr/bin/setpriv", nobody + ["/bin/cat", packs + "/a/style.json"])
        XCTAssertEqual(read.status, 0, read.text)
        let write = try run("/usr/bin/setpriv", nobody + ["/bin/cp", region, packs + "/b.region"])
        XCTAssertNotEqual(write.status, 0)
        XCTAssertTrue(write.text.contains("Permission denied"), write.text)
        // Every change a pack can take, tried by the other user: each refused by the kernel's
        // mode check (default_permissions), none reaching the daemon.
        let changes: [[String]] = [
            ["/bin/rm", "-f", packs + "/a.region"], ["/bin/rm", "-rf", packs + "/a"],
            ["/bin/mv", packs + "/a", packs + "/moved"], ["/usr/bin/touch", packs + "/a"],
            ["/bin/mkdir", packs + "/c"], ["/bin/cp", region, packs + "/a.region"],
        ]
        for change in changes {
            let outcome = try run("/usr/bin/setpriv", nobody + change)
            XCTAssertNotEqual(outcome.status, 0, "\(change): \(outcome.text)")
            XCTAssertTrue(outcome.text.contains("Permission denied"), "\(change): \(outcome.text)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs).sorted(), ["a", "a.region"])
        waitForState("a")
        unmountPackFS()
        try mountPackFS()
        let denied = try run("/usr/bin/setpriv", nobody + ["/bin/ls", mount.path])
        XCTAssertNotEqual(denied.status, 0, denied.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/a/style.json"), "the mounting user still reads")
    }

    func testUnmountDuringADownloadResumesAtTheNextMount() throws {
        server.stop()
        server = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
        try mountPackFS(["--concurrency", "2"])
        try copyRegion(try helsinki("region.json"), to: "helsinki")
        // progress.json is live: with stateless opens its changes of the same size must show too.
        var seen: [Double] = []
        _ = eventually(timeout: 30) {
            if let done = progress("helsinki")?["completed_resources"]?.number, seen.last != done { seen.append(done) }
            return seen.count >= 4
        }
        XCTAssertGreaterThanOrEqual(seen.count, 4, "progress.json advanced: \(seen)")
        XCTAssertEqual(seen, seen.sorted())
        unmountPackFS()
        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        let pack = try database.pack(named: "helsinki")
        let stored = try database.progress(of: pack.id).completedResources
        XCTAssertEqual(try database.status(of: pack.id).state, .active, "recorded for resumption")
        XCTAssertGreaterThan(stored, 0)
        XCTAssertLessThan(stored, 322)
        try database.close()
        // Requests cut by the unmount are logged as the server finishes them.
        let before = try server.settledAccessLog().count
        try mountPackFS()
        waitForState("helsinki")
        let again = try server.accessLog().dropFirst(before).count
        XCTAssertEqual(again, 322 - stored, "only what was missing was fetched")
    }
}
