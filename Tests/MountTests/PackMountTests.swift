import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs mount` as a user runs it: a pack downloaded from nginx, mounted by the real binary in
/// daemon mode, read with ordinary tools, compared byte for byte with the origin.
final class PackMountTests: DaemonMountTestCase {
    /// The tests only read from nginx, and each mounts its own copy of one download.
    override class var sharesServer: Bool { true }
    private static let downloaded = ClassFixture<TemporaryDirectory>()

    override class func setUp() {
        super.setUp()
        downloaded.setUp {
            let directory = try classDirectory()
            let server = try XCTUnwrap(sharedServer())
            let file = directory.path("helsinki.region")
            try region(style: server.url("/styles/bright.json")).write(toFile: file, atomically: true, encoding: .utf8)
            let download = try Packfs.run(["download", directory.path("packs.db"), "helsinki", file])
            guard download.status == 0 else { throw PackFSProcess.Failure("packfs download: \(download.text)") }
            return directory
        }
    }

    override class func tearDown() {
        downloaded.tearDown { _ in }
        super.tearDown()
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let downloaded = try Self.downloaded.value()
        for name in ["packs.db", "helsinki.region"] {
            try FileManager.default.copyItem(atPath: downloaded.path(name), toPath: temp.path(name))
        }
    }

    func testEveryFileHasTheOriginsBytesAndToolsBehave() throws {
        try mountPackFS()
        let pack = mount.path + "/packs/helsinki"
        let files = try FileManager.default.subpathsOfDirectory(atPath: pack)
        let tiles = files.filter { $0.range(of: #"^\d+/\d+/\d+\.pbf$"#, options: .regularExpression) != nil }
        XCTAssertEqual(tiles.count, 19)
        for tile in tiles {
            let served = try Data(contentsOf: URL(fileURLWithPath: pack + "/" + tile))
            XCTAssertEqual(served, try server.expectedContent("/tiles/helsinki/" + tile), tile)
        }
        for glyph in files.filter({ $0.hasPrefix("glyphs/") && $0.hasSuffix(".pbf") }) {
            let parts = glyph.split(separator: "/")
            let served = try Data(contentsOf: URL(fileURLWithPath: pack + "/" + glyph))
            XCTAssertEqual(served, try server.expectedContent("/fonts/\(parts[1])/\(parts[2])"), glyph)
        }
        XCTAssertEqual(files.filter { $0.hasPrefix("glyphs/") && $0.hasSuffix(".pbf") }.count, 291)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: pack + "/sprites/default@2x.png")),
                       try server.expectedContent("/sprites/bright@2x.png"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: pack + "/sources/relief/1/1/0.png")),
                       try server.expectedContent("/tiles/geography-class-png/1/1/0.png"))

        let find = MountHelper.runTool("/usr/bin/find", [pack, "-type", "f"])
        XCTAssertEqual(find.status, 0)
        let found = String(decoding: find.output, as: UTF8.self).split(separator: "\n").count
        XCTAssertEqual(found, files.filter { !$0.hasSuffix("/") }.count - (try directories(pack)))
        let stat = MountHelper.runTool("/usr/bin/stat", ["-c", "%s %A", pack + "/14/9327/4742.pbf"])
        XCTAssertEqual(String(decoding: stat.output, as: UTF8.self), "\(try server.expectedContent("/tiles/helsinki/14/9327/4742.pbf").count) -r--r--r--\n")
        XCTAssertEqual(MountHelper.runTool("/usr/bin/du", ["-s", pack]).status, 0)
        let ls = MountHelper.runTool("/bin/ls", ["-l", mount.path + "/packs"])
        XCTAssertTrue(String(decoding: ls.output, as: UTF8.self).contains("helsinki.region"))
        let style = try XCTUnwrap(JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: pack + "/style.json"))))
        XCTAssertEqual(style["glyphs"]?.string, "file://\(mount.path)/packs/helsinki/glyphs/{fontstack}/{range}.pbf")
        let progress = try XCTUnwrap(JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: pack + "/progress.json"))))
        XCTAssertEqual(progress["state"], .string("complete"))
        XCTAssertEqual(progress["completed_tiles"], .number(25))
    }

    /// Sizes come with the listing (READDIRPLUS) from the sizes the downloader recorded, kept
    /// beside each tile's key (PackTiles); they stay exact when an app rewrites tiles (triggers
    /// drop the recorded size) and when the database has no sizes at all (an app's: each tile is
    /// decoded for its size).
    func testWalkedSizesAreExactWhateverWroteTheTiles() throws {
        func sql(_ statement: String) -> String {
            // Waits out a lock the unmounted daemon's last steps may still hold (without, the CLI prints nothing).
            String(decoding: MountHelper.runTool("/usr/bin/sqlite3", ["-cmd", ".timeout 30000", db, statement]).output,
                   as: UTF8.self)
        }
        XCTAssertEqual(sql("SELECT COUNT(*) FROM tiles WHERE compressed = 1 AND data IS NOT NULL"
            + " AND id NOT IN (SELECT tile_id FROM packfs_tile_sizes)"), "0\n", "every compressed tile has its size")
        XCTAssertNotEqual(sql("SELECT COUNT(*) FROM packfs_tile_sizes"), "0\n")
        XCTAssertEqual(sql("SELECT COUNT(*) FROM packfs_pack_tiles_ready"), "1\n", "listed from its kept tiles (PackTiles)")
        // As an app would: new bytes for two tiles (one uncompressed, one another tile's zlib).
        let plain = "z = 14 AND x = 9327 AND y = 4742", zlib = "z = 14 AND x = 9328 AND y = 4742"
        _ = sql("UPDATE tiles SET data = CAST('app bytes' AS BLOB), compressed = 0 WHERE \(plain)")
        _ = sql("UPDATE tiles SET data = (SELECT data FROM tiles WHERE z = 5), compressed = 1 WHERE \(zlib)")
        XCTAssertEqual(sql("SELECT COUNT(*) FROM packfs_tile_sizes s JOIN tiles t ON t.id = s.tile_id"
            + " WHERE t.\(plain) OR t.\(zlib)"), "0\n", "the triggers dropped the rewritten tiles' sizes")
        XCTAssertEqual(sql("SELECT COUNT(*) FROM packfs_pack_tiles WHERE size IS NULL"
            + " AND tile_id IN (SELECT id FROM tiles WHERE \(plain) OR \(zlib))"), "1\n", "and their kept sizes")
        try assertWalkedSizesMatchContents()
        // As a file PackFS never wrote to: no sizes and no kept tiles (a write makes both tables again, empty; the
        // pack, older than they are, is listed by TreeSQL).
        let triggers = sql("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'packfs_pack_tiles%'")
            .split(separator: "\n").map(String.init) + ["packfs_tile_sizes_update", "packfs_tile_sizes_delete"]
        XCTAssertGreaterThan(triggers.count, 2, "the kept tiles' triggers were listed")
        _ = sql("BEGIN; " + triggers.map { "DROP TRIGGER \($0); " }.joined()
            + "DROP TABLE packfs_tile_sizes; DROP TABLE packfs_pack_tiles; DROP TABLE packfs_pack_tiles_ready; COMMIT;")
        XCTAssertEqual(sql("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'packfs_pack_tiles%'"), "0\n")
        try assertWalkedSizesMatchContents()
    }

    /// On a fresh mount: every file's size as `find -printf %s` gives it (the walk's stat, from
    /// the listing) equals the bytes read from it.
    private func assertWalkedSizesMatchContents() throws {
        try mountPackFS()
        defer { unmountPackFS() }
        let pack = mount.path + "/packs/helsinki"
        let find = MountHelper.runTool("/usr/bin/find", [pack, "-type", "f", "-printf", "%s %P\n"])
        XCTAssertEqual(find.status, 0)
        let lines = String(decoding: find.output, as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 300)
        for line in lines {
            let (size, name) = (line.prefix { $0 != " " }, line.drop { $0 != " " }.dropFirst())
            let content = try Data(contentsOf: URL(fileURLWithPath: pack + "/" + name))
            XCTAssertEqual(Int(size), content.count, String(name))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: pack + "/14/9327/4742.pbf")), Data("app bytes".utf8))
    }

    /// The kernel keeps a tile column's listing from one `ls` to the next while the mount writes nothing
    /// (KernelListings), and reads it again after any write. A row dropped behind the mount's back, by a
    /// process that ignores its lock, shows which: it stays listed until the mount's next write (`mv`).
    func testTheKernelKeepsAColumnsListingUntilTheMountWrites() throws {
        try mountPackFS()
        defer { unmountPackFS() }
        let column = mount.path + "/packs/helsinki/14/9327"
        let listed = try FileManager.default.contentsOfDirectory(atPath: column).sorted()
        XCTAssertEqual(listed, ["4741.pbf", "4742.pbf"])
        let dropped = MountHelper.runTool("/usr/bin/sqlite3", ["-cmd", ".timeout 30000", db,
            "DELETE FROM region_tiles WHERE tile_id = (SELECT id FROM tiles WHERE z = 14 AND x = 9327 AND y = 4742)"])
        XCTAssertEqual(dropped.status, 0, String(decoding: dropped.output, as: UTF8.self))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: column).sorted(), listed, "the kernel's copy")
        XCTAssertEqual(MountHelper.runTool("/bin/mv", [mount.path + "/packs/helsinki.region", mount.path + "/packs/moved.region"]).status, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount.path + "/packs/moved/14/9327"), ["4741.pbf"])
    }

    func testChangesInsideAPackFailAndUnmountLeavesOneFile() throws {
        try mountPackFS()
        let tile = mount.path + "/packs/helsinki/14/9327/4742.pbf"
        // Opens are zero-message (the kernel never asks), so the refusal comes with the write.
        let fd = open(tile, O_WRONLY)
        if fd >= 0 {
            XCTAssertEqual(write(fd, "x", 1), -1)
            XCTAssertEqual(errno, EROFS)
            close(fd)
        } else {
            XCTAssertEqual(errno, EROFS)
        }
        XCTAssertEqual(open(mount.path + "/packs/helsinki/new.pbf", O_CREAT | O_WRONLY, 0o644), -1)
        XCTAssertEqual(errno, EROFS)
        XCTAssertEqual(mkdir(mount.path + "/packs/helsinki/15", 0o755), -1)
        XCTAssertEqual(errno, EROFS)
        XCTAssertEqual(chmod(tile, 0o644), -1)
        XCTAssertEqual(errno, EROFS)
        // Links, fifos and attribute removals are refused too (without handlers the kernel says
        // ENOSYS, "Function not implemented"): EROFS inside a pack, EPERM in packs/.
        let packs = mount.path + "/packs"
        XCTAssertEqual(errnoOf { symlink("14", packs + "/helsinki/15") }, EROFS)
        XCTAssertEqual(errnoOf { link(tile, packs + "/helsinki/14/9327/9999.pbf") }, EROFS)
        XCTAssertEqual(errnoOf { mkfifo(packs + "/helsinki/fifo", 0o644) }, EROFS)
        XCTAssertEqual(errnoOf { XAttr.remove(tile, "user.packfs.state") }, EROFS)
        XCTAssertEqual(errnoOf { symlink("helsinki", packs + "/other") }, EPERM)
        XCTAssertEqual(errnoOf { link(packs + "/helsinki.region", packs + "/other.region") }, EPERM)
        XCTAssertEqual(errnoOf { mkfifo(packs + "/other.region", 0o644) }, EPERM)
        XCTAssertEqual(errnoOf { XAttr.remove(packs + "/helsinki.region", "user.packfs.state") }, EPERM)
        XCTAssertEqual(errnoOf { XAttr.remove(packs + "/helsinki.region", "user.other") }, ENODATA)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs).sorted(), ["helsinki", "helsinki.region"])
        XCTAssertEqual(FileManager.default.contents(atPath: tile), try server.expectedContent("/tiles/helsinki/14/9327/4742.pbf"))
        let again = try packfs(["mount", db, temp.path("helsinki.region")])
        XCTAssertEqual(again.status, 1, "refused: not a directory")
        let second = temp.path("second")
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        let busy = try packfs(["mount", db, second])
        XCTAssertEqual(busy.status, 1)
        XCTAssertTrue(busy.text.contains("in use by another PackFS process"), busy.text)
        unmountPackFS()
        // The daemon's last act (journal mode back to DELETE) may hold the lock a moment longer.
        let mode = MountHelper.runTool("/usr/bin/sqlite3", ["-cmd", ".timeout 30000", db, "PRAGMA journal_mode"])
        XCTAssertEqual(String(decoding: mode.output, as: UTF8.self), "delete\n")
    }

    func testANonOfflineDatabaseIsRefusedAndLeftUntouched() throws {
        let bogus = temp.path("bogus.db")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: bogus))
        let outcome = try packfs(["mount", bogus, mount.path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.text.contains("not an SQLite database"), outcome.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: bogus)), Data("not a database".utf8))
        XCTAssertFalse(mount.isMounted)
    }

    private func directories(_ root: String) throws -> Int {
        var isDirectory: ObjCBool = false
        return try FileManager.default.subpathsOfDirectory(atPath: root).filter {
            FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isDirectory) && isDirectory.boolValue
        }.count
    }
}
