import Foundation
import PackStore
import TestSupport
import XCTest

/// The command line's hostile corpus: every command against a database file that is missing, a
/// directory, empty, truncated, held by another PackFS process, on a read-only file system and on
/// a full one. A command that cannot do its work exits 1 with one line that names the file and
/// the cause (never a trap), and the file is left byte for byte; a command only reading a held,
/// read-only or full file still works.
final class CommandCorpusTests: CLITestCase {
    /// What a command does to its database: reads it, changes it, or may create it.
    enum Use { case reads, changes, creates }

    struct Case {
        var arguments: (String) -> [String]
        var use: Use
        var label: String
    }

    var scratch: ScratchFilesystem?
    var mountpoint: String { temp.path("mnt") }

    override func tearDown() {
        if MountHelper.isFUSE(mountpoint) { MountHelper.runTool("/usr/bin/fusermount3", ["-u", "-z", mountpoint]) }
        scratch?.remove()
        super.tearDown()
    }

    /// The database the commands work on: an imported MBTiles pack ("land", exportable) and
    /// the two packs of `makeDatabase` ("helsinki", "other").
    func makeCorpusDatabase() throws {
        try makeDatabase()
        let land = ProjectPaths.fixtures.appendingPathComponent("mbtiles/land.mbtiles").path
        let imported = try packfs("import", db, land, "--name", "land")
        XCTAssertEqual(imported.status, 0, imported.stderr)
    }

    /// Every command that takes a database, with what it does to it.
    func commands() throws -> [Case] {
        let region = temp.path("region.json")
        try #"{"style": "http://127.0.0.1:9/style.json", "bounds": [24.93, 60.16, 24.96, 60.18], "maxzoom": 1}"#
            .write(toFile: region, atomically: true, encoding: .utf8)
        let side = temp.path("side.db")
        let sideDatabase = try OfflineDatabase.open(path: side)
        try sideDatabase.close()
        try FileManager.default.createDirectory(atPath: mountpoint, withIntermediateDirectories: true)
        let out = temp.path("out")
        return [
            Case(arguments: { ["list", $0] }, use: .reads, label: "list"),
            Case(arguments: { ["status", $0, "land"] }, use: .reads, label: "status"),
            Case(arguments: { ["cache", $0, "size"] }, use: .reads, label: "cache size"),
            Case(arguments: { ["export", $0, "land", out + ".mbtiles"] }, use: .reads, label: "export"),
            Case(arguments: { ["diff", "--old-pack", $0, "land", "--new-pack", $0, "land", "\(out)-\(UUID().uuidString).mbtiles"] },
                 use: .reads, label: "diff"),
            Case(arguments: { ["remove", $0, "land"] }, use: .changes, label: "remove"),
            Case(arguments: { ["refresh", $0, "other", "--retries", "1"] }, use: .changes, label: "refresh"),
            Case(arguments: { ["cache", $0, "limit", "1000"] }, use: .changes, label: "cache limit"),
            Case(arguments: { ["cache", $0, "invalidate"] }, use: .changes, label: "cache invalidate"),
            Case(arguments: { ["download", $0, "new", region, "--retries", "1"] }, use: .creates, label: "download"),
            Case(arguments: { ["import", $0, side] }, use: .creates, label: "import"),
            Case(arguments: { ["mount", $0, self.mountpoint] }, use: .creates, label: "mount"),
        ]
    }

    /// Runs `command` on `path` and checks what it must do there: exit 1 with one line naming the
    /// file and `cause` (when `fails`), and leave the file as it was.
    func check(_ command: Case, on path: String, kind: String, fails: Bool, cause: String) throws {
        let before = FileManager.default.contents(atPath: path)
        let outcome = try packfs(command.arguments(path))
        let what = "\(command.label) on a \(kind) file"
        if MountHelper.isFUSE(mountpoint) { MountHelper.runTool("/usr/bin/fusermount3", ["-u", mountpoint]) }
        XCTAssertTrue([0, 1].contains(outcome.status), "\(what): exit \(outcome.status) (a trap?): \(outcome.stderr)")
        guard fails else {
            XCTAssertEqual(outcome.status, 0, "\(what): \(outcome.stderr)")
            return
        }
        XCTAssertEqual(outcome.status, 1, "\(what): \(outcome.stdout)\(outcome.stderr)")
        let last = outcome.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("packfs: ") && last.contains(path) && last.lowercased().contains(cause),
                      "\(what): \(outcome.stderr.debugDescription) names neither the file nor \"\(cause)\"")
        XCTAssertEqual(FileManager.default.contents(atPath: path), before, "\(what) changed the file")
    }

    func testAMissingFileIsNeverCreatedByACommandThatDoesNotMakeDatabases() throws {
        for command in try commands() where command.use != .creates {
            let path = temp.path("typo.db")
            try check(command, on: path, kind: "missing", fails: true, cause: "no such offline database")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(command.label) created \(path)")
        }
    }

    func testADirectoryIsRefusedByEveryCommand() throws {
        let path = temp.path("folder.db")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for command in try commands() {
            try check(command, on: path, kind: "directory", fails: true, cause: "is a directory")
        }
    }

    func testAnEmptyFileIsRefusedByEveryCommandThatDoesNotMakeDatabases() throws {
        let path = temp.path("empty.db")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        for command in try commands() where command.use != .creates {
            try check(command, on: path, kind: "empty", fails: true, cause: "holds no offline database")
        }
    }

    func testATruncatedDatabaseIsRefusedByEveryCommand() throws {
        try makeCorpusDatabase()
        let whole = try Data(contentsOf: URL(fileURLWithPath: db))
        let path = temp.path("cut.db")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        for command in try commands() {
            try check(command, on: path, kind: "truncated", fails: true, cause: "damaged")
        }
    }

    func testADatabaseAnotherProcessHoldsIsOnlyRead() throws {
        try makeCorpusDatabase()
        let holder = open(db, O_RDWR)
        XCTAssertGreaterThanOrEqual(holder, 0)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_EX | LOCK_NB), 0, "the test holds the lock as a mount does")
        for command in try commands() {
            try check(command, on: db, kind: "held", fails: command.use != .reads, cause: "in use by another packfs process")
        }
    }

    func testADatabaseOnAReadOnlyFileSystemIsOnlyRead() throws {
        try makeCorpusDatabase()
        let scratch = try requireScratch(size: "4m")
        let path = try scratch.copy(db, as: "packs.db")
        try scratch.remount(readOnly: true)
        for command in try commands() {
            try check(command, on: path, kind: "read-only", fails: command.use != .reads, cause: "read-only")
        }
    }

    func testADatabaseOnAFullFileSystemFailsEveryWriteAndKeepsItsBytes() throws {
        try makeCorpusDatabase()
        let scratch = try requireScratch(size: "512k")
        let path = try scratch.copy(db, as: "packs.db")
        try scratch.fill()
        // `cache invalidate` with no ambient row has nothing to write, and succeeds.
        for command in try commands() where command.label != "cache invalidate" {
            try check(command, on: path, kind: "full", fails: command.use != .reads, cause: "full")
        }
    }

    /// A small tmpfs of this test's own (root only; CI runs as root).
    private func requireScratch(size: String) throws -> ScratchFilesystem {
        guard getuid() == 0 else {
            if isCI { XCTFail("not root: cannot mount a tmpfs") }
            throw XCTSkip("mounting a tmpfs needs root")
        }
        let made = try ScratchFilesystem(at: temp.path("scratch"), size: size)
        scratch = made
        return made
    }
}
