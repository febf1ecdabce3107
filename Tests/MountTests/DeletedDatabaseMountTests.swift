import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// The database file deleted or replaced while mounted (issue 21): the daemon notices, refuses
/// changes saying why (status.json, `<name>.error`, the log), keeps serving what it can, and
/// at unmount saves what the file held: at its path when that is free, beside it otherwise,
/// never into the file now there.
final class DeletedDatabaseMountTests: DaemonMountTestCase {
    override class func makeServer() throws -> TestServer? { nil }

    /// A database holding the fixture's land tiles as the pack "land"; its tile files.
    private func makeDatabase() throws -> [String] {
        let land = ProjectPaths.fixtures.appendingPathComponent("mbtiles/land.mbtiles").path
        let imported = try packfs(["import", db, land, "--name", "land"])
        XCTAssertEqual(imported.status, 0, imported.text)
        try mountPackFS(["--log", temp.path("mount.log")])
        return (FileManager.default.subpaths(atPath: packs + "/land") ?? []).filter { $0.hasSuffix(".pbf") }
    }

    private var log: String { (try? String(contentsOfFile: temp.path("mount.log"), encoding: .utf8)) ?? "" }

    private func unmountAndWait() {
        MountHelper.runTool("/usr/bin/fusermount3", ["-u", mount.path])
        XCTAssertTrue(eventually(timeout: 60) { log.contains("what it held was saved to") }, log)
    }

    func testADeletedDatabaseRefusesChangesServesWhatItCanAndIsSavedAtItsPath() throws {
        let tiles = try makeDatabase()
        let tile = packs + "/land/" + (try XCTUnwrap(tiles.first))
        let before = try Data(contentsOf: URL(fileURLWithPath: tile))
        try FileManager.default.removeItem(atPath: db)
        XCTAssertEqual(FileManager.default.contents(atPath: tile), before, "what is open keeps serving")
        let status = JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: mount.path + "/status.json")))
        XCTAssertTrue(status?["problem"]?.string?.contains("was deleted while in use") ?? false, "\(String(describing: status))")
        let region = #"{"style": "http://127.0.0.1:9/s.json", "bounds": [24.93, 60.16, 24.96, 60.18], "maxzoom": 1}"#
        XCTAssertThrowsError(try Data(region.utf8).write(to: URL(fileURLWithPath: packs + "/new.region")))
        XCTAssertTrue((try? String(contentsOfFile: packs + "/new.error", encoding: .utf8))?.contains("deleted") ?? false)
        unmountAndWait()
        XCTAssertTrue(log.contains("saved to \(db)"), log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "the old file's log is gone with it")
        let saved = try OfflineDatabase.open(path: db, mode: .readOnly)
        defer { try? saved.close() }
        XCTAssertEqual(try saved.packs().map(\.name), ["land"])
        XCTAssertEqual(try Command.run("/usr/bin/sqlite3", [db, "PRAGMA integrity_check"]).text, "ok\n")
    }

    func testAReplacedDatabaseIsLeftAloneAndTheOldOneSavedBesideIt() throws {
        _ = try makeDatabase()
        try FileManager.default.moveItem(atPath: db, toPath: temp.path("moved.db"))
        let other = Data("another program's file".utf8)
        try other.write(to: URL(fileURLWithPath: db))
        let status = JSONValue.parse(try Data(contentsOf: URL(fileURLWithPath: mount.path + "/status.json")))
        XCTAssertTrue(status?["problem"]?.string?.contains("was replaced by another file") ?? false, "\(String(describing: status))")
        unmountAndWait()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), other, "the file now at the path is not touched")
        let mode = try FileManager.default.attributesOfItem(atPath: db + ".recovered")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the copy holds the packs: it has the database's mode")
        let saved = try OfflineDatabase.open(path: db + ".recovered", mode: .readOnly)
        defer { try? saved.close() }
        XCTAssertEqual(try saved.packs().map(\.name), ["land"])
    }
}
