import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// `cp PATCH packs/NAME.patch` on a real mount: the tiles a reader sees (cached by the kernel
/// before) change to the new file's, the patch file is gone, a refusal fails the copy and says
/// why in NAME.error with every tile as it was, and readers of another pack read on throughout.
final class PatchMountTests: DaemonMountTestCase {
    override class func makeServer() throws -> TestServer? { nil }

    var old = "", new = "", other = ""
    let before = MartinFixtures.hashes["world_cities"] ?? ""
    let after = MartinFixtures.hashes["world_cities_modified"] ?? ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        (old, new) = try MartinFixtures.patchSides(in: temp)
        other = try MartinFixtures.build("zoomed_world_cities", in: temp)
        for (file, name) in [(old, "cities"), (other, "other")] {
            let outcome = try packfs(["import", db, file, "--name", name, "--accept-hash-mismatch"])
            XCTAssertEqual(outcome.status, 0, outcome.text)
        }
    }

    private func patchFile(_ name: String, before: String? = nil) throws -> String {
        let path = temp.path("\(name).mbtiles")
        try PatchFiles.make(old: old, new: new, to: path, before: before ?? self.before, after: after)
        return path
    }

    func testACopiedPatchChangesWhatReadersSeeAndIsGoneWhileAnotherPackIsRead() throws {
        try mountPackFS()
        let oldTiles = try Self.contents(of: old)
        // Every tile read once: the kernel keeps their pages (a complete pack's tiles are immutable).
        for (path, content) in oldTiles { XCTAssertEqual(read("cities", path), content, path) }
        let otherTiles = try Self.contents(of: other)
        let reader = OtherPackReader(packs: packs, tiles: otherTiles)
        reader.start()
        let cp = try Command.run("/bin/cp", [try patchFile("diff"), "\(packs)/cities.patch"])
        let failures = reader.stop()
        XCTAssertEqual(cp.status, 0, cp.text)
        XCTAssertEqual(failures, [], "reads of the other pack failed during the patch")
        XCTAssertGreaterThan(reader.reads, 0)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: packs).contains("cities.patch"))
        let newTiles = try Self.contents(of: new)
        for (path, content) in newTiles { XCTAssertEqual(read("cities", path), content, path) }
        for path in Set(oldTiles.keys).subtracting(newTiles.keys) {
            XCTAssertNil(read("cities", path), "\(path) was deleted by the patch")
        }
        XCTAssertTrue(spoolFiles().isEmpty, "spool files left: \(spoolFiles())")
        unmountPackFS()
        let verify = try packfs(["verify", db, "cities"])
        XCTAssertEqual(verify.status, 0, verify.text)
        XCTAssertTrue(verify.text.contains(after), verify.text)
    }

    func testARefusedPatchFailsTheCopySaysWhyAndChangesNothing() throws {
        try mountPackFS()
        let oldTiles = try Self.contents(of: old)
        let cp = try Command.run("/bin/cp", [try patchFile("wrong", before: String(repeating: "C", count: 32)), "\(packs)/cities.patch"])
        XCTAssertNotEqual(cp.status, 0)
        XCTAssertTrue(cp.text.contains("Invalid argument"), cp.text)
        let reason = String(decoding: FileManager.default.contents(atPath: "\(packs)/cities.error") ?? Data(), as: UTF8.self)
        XCTAssertTrue(reason.contains("is not what the patch applies to"), reason)
        XCTAssertTrue(reason.contains(before), reason)
        for (path, content) in oldTiles { XCTAssertEqual(read("cities", path), content, path) }
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: packs).contains("cities.patch"))
        // A file that is no database at all fails the copy at its first write.
        let junk = temp.path("junk.txt")
        try Data(String(repeating: "not a patch\n", count: 1000).utf8).write(to: URL(fileURLWithPath: junk))
        let copied = try Command.run("/bin/cp", [junk, "\(packs)/cities.patch"])
        XCTAssertNotEqual(copied.status, 0)
        XCTAssertTrue(copied.text.contains("Invalid argument"), copied.text)
        let why = String(decoding: FileManager.default.contents(atPath: "\(packs)/cities.error") ?? Data(), as: UTF8.self)
        XCTAssertTrue(why.contains("not an SQLite database"), why)
        // No pack of that name: nothing to create.
        let missing = try Command.run("/bin/cp", [try patchFile("diff"), "\(packs)/nosuch.patch"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.text.contains("No such file or directory"), missing.text)
        // A copy cut short: settled once it rests, refused, gone.
        let patch = try Data(contentsOf: URL(fileURLWithPath: try patchFile("whole")))
        let cut = temp.path("cut.mbtiles")
        try patch.prefix(patch.count / 2).write(to: URL(fileURLWithPath: cut))
        try FileManager.default.removeItem(atPath: "\(packs)/cities.error")
        XCTAssertEqual(try Command.run("/bin/cp", [cut, "\(packs)/cities.patch"]).status, 0)
        XCTAssertTrue(eventually(timeout: 30) { FileManager.default.fileExists(atPath: "\(packs)/cities.error") })
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: packs).contains("cities.patch"))
        XCTAssertTrue(spoolFiles().isEmpty, "spool files left: \(spoolFiles())")
        unmountPackFS()
        XCTAssertTrue(try packfs(["verify", db, "cities"]).text.contains(before))
    }

    /// A tile of `pack` through the mount (nil when it cannot be read).
    private func read(_ pack: String, _ path: String) -> Data? {
        FileManager.default.contents(atPath: "\(packs)/\(pack)/\(path)")
    }

    private func spoolFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: temp.path(""))) ?? []).filter { $0.contains(".patch-") }
    }

    /// An MBTiles file's tiles as the mount shows them: "z/x/y.pbf" (XYZ rows) to inflated bytes.
    static func contents(of path: String) throws -> [String: Data] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var found: [String: Data] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles") {
                let z: Int = row[0], x: Int = row[1], tms: Int = row[2], data: Data = row[3]
                found["\(z)/\(x)/\((1 << z) - 1 - tms).pbf"] = try Zlib.inflate(data, windowBits: 47)
            }
            return found
        }
    }
}

/// Reads every tile of pack "other" over and over on its own thread, noting each read that
/// fails or gives other bytes.
final class OtherPackReader: @unchecked Sendable {  // `failures`, `count` and `running` are guarded by `lock`
    let packs: String
    let tiles: [String: Data]
    private let lock = NSLock()
    private var failures: [String] = []
    private var count = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(packs: String, tiles: [String: Data]) {
        self.packs = packs
        self.tiles = tiles
    }

    var reads: Int { lock.withLock { count } }

    func start() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                for (path, content) in tiles {
                    let read = FileManager.default.contents(atPath: "\(packs)/other/\(path)")
                    lock.withLock {
                        count += 1
                        if read != content { failures.append(path) }
                    }
                }
            }
            done.signal()
        }
    }

    /// Stops after the current round (at least one whole round is read) and returns the failures.
    func stop() -> [String] {
        _ = eventually(timeout: 60) { reads >= tiles.count }
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { failures }
    }
}
