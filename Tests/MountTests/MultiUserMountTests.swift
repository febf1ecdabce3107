import Foundation
import PackStore
import TestSupport
import XCTest

/// A shared device (docs/design.md §2): mounted with `-o allow_other`, another user (`nobody`)
/// reads the packs' tiles, and reads neither the region files (the owner's, keys and all) nor
/// the database and its side files, nor writes a region file.
final class MultiUserMountTests: DaemonMountTestCase {
    private static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Runs `arguments` as `nobody`; the text is stdout and stderr together.
    private func asNobody(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let outcome = try Command.runApart("/usr/bin/setpriv", Self.nobody + arguments)
        return (outcome.status, outcome.stdout + outcome.stderr)
    }

    func testAnotherUserReadsTilesButNotTheDatabaseNorRegionFiles() throws {
        // The test's directory (beside the database) must be traversable for nobody to reach
        // the mountpoint: what keeps the database from nobody is then its own mode.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: temp.url.path)
        try mountPackFS(["-o", "allow_other"])
        let region = try regionFile("a.json", style: server.url("/styles/bright.json?key=OwnersKey"), maxZoom: 3)
        try copyRegion(region, to: "a")
        waitForState("a")
        let tile = packs + "/a/3/4/2.pbf"
        let owners = try Command.run("/usr/bin/sha256sum", [tile])
        XCTAssertEqual(owners.status, 0, owners.text)
        let theirs = try asNobody(["/usr/bin/sha256sum", tile])
        XCTAssertEqual(theirs.status, 0, theirs.text)
        XCTAssertEqual(theirs.text, owners.text, "nobody reads the bytes the owner reads")

        XCTAssertTrue(FileManager.default.fileExists(atPath: db + "-wal"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: db + "-shm"))
        for file in [db, db + "-wal", db + "-shm", packs + "/a.region"] {
            let outcome = try asNobody(["/bin/cat", file])
            XCTAssertNotEqual(outcome.status, 0, file)
            XCTAssertTrue(outcome.text.contains("Permission denied"), "\(file): \(outcome.text)")
        }
        XCTAssertTrue(try String(contentsOfFile: packs + "/a.region", encoding: .utf8).contains("bright.json?key=OwnersKey"),
                      "the owner reads the definition as written, key and all")
        let write = try asNobody(["/bin/sh", "-c", "echo '{}' > \"$1\"", "sh", packs + "/b.region"])
        XCTAssertNotEqual(write.status, 0)
        XCTAssertTrue(write.text.contains("Permission denied"), write.text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs).sorted(), ["a", "a.region"])
    }

    /// `-o db_mode=` (and `--db-mode`, as `mount.fuse.packfs` passes it) sets a new database's
    /// mode, which SQLite gives its side files; a mode the owner cannot use is bad usage.
    func testDatabaseModeOptions() throws {
        try mountPackFS(["-o", "db_mode=0640,allow_other"])
        XCTAssertEqual(try mode(db), 0o640)
        XCTAssertEqual(try mode(db + "-wal"), 0o640)
        unmountPackFS()
        let other = temp.path("other.db")
        XCTAssertEqual(try packfs(["reset", other, "--db-mode", "0604"]).status, 0)
        XCTAssertEqual(try mode(other), 0o604)
        XCTAssertEqual(try packfs(["reset", other, "--db-mode", "0600"]).status, 0)
        XCTAssertEqual(try mode(other), 0o604, "an existing file keeps its mode")
        for bad in [["reset", other, "--db-mode", "0400"], ["mount", other, mount.path, "-o", "db_mode=9"]] {
            let outcome = try packfs(bad)
            XCTAssertEqual(outcome.status, 2, outcome.text)
            XCTAssertTrue(outcome.text.contains("an octal mode in which the owner reads and writes"), outcome.text)
        }
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}
