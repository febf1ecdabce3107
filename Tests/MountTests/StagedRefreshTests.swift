import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Issue 29, item 5: `touch packs/NAME.region` against an origin that now serves changed tiles
/// (and a changed sprite) never shows a mix. The fault server holds the pack's z14 tiles, so the
/// refresh is provably mid-way: everything else answered and committed, the changes staged. Then
/// the mount serves the old pack byte for byte, the database holds it (an app opening the file
/// sees it too) with its old hash; a kill -9 there leaves it so, and the next mount asks only for
/// what was not answered; the end switches every file at once, and the recorded hash is
/// `packfs verify`'s.
final class StagedRefreshTests: CrashRigTestCase {
    override class var slowSeconds: Double { 0 }

    /// The requests the fault server holds: the pack's 4 tiles at z14.
    static let held = "/tiles/helsinki/14/"
    static let heldTiles = 4
    static var changed: Set<String> { OriginChange.paths }

    /// The pack, downloaded and complete, its content and hashes as stored.
    private func downloadPack() throws -> StoreSnapshot.PackSnapshot {
        try rig.mount(concurrency: 20, extra: ["--stall-timeout", "60"])
        try rig.write(.helsinki, to: "p")
        rig.waitForState("p")
        return try XCTUnwrap(try live().packs["p"])
    }

    /// The origin changes (overlay files) and holds z14; `touch` starts the refresh; returns once
    /// every request but the held ones was answered and committed, the changes below z14 staged.
    private func touchAndWaitMidway(_ before: StoreSnapshot.PackSnapshot) throws -> Date {
        try OriginChange.apply(to: rig.server)
        try rig.server.hold(Self.held)
        let touched = Date()
        XCTAssertEqual(try Command.run("/usr/bin/touch", [packs + "/p.region"]).status, 0)
        let waiting = before.members.filter { $0.hasPrefix(Self.held) }
        XCTAssertEqual(waiting.count, Self.heldTiles)
        var last: StoreSnapshot.PackSnapshot?
        let midway = eventually(timeout: 60) {
            last = try? self.live().packs["p"]
            return last?.staged == Self.changed.filter { !$0.hasPrefix(Self.held) }
                && last?.refreshed == before.members.subtracting(waiting)
                && (try? self.rig.requests(after: touched).filter { $0.hasPrefix(Self.held) }.count) == Self.heldTiles
        }
        XCTAssertTrue(midway, "mid-way: staged \(last?.staged ?? []), not done \(before.members.subtracting(last?.refreshed ?? []))")
        XCTAssertEqual(rig.state("p"), "active")
        return touched
    }

    /// (a) and (c): old bytes while the refresh is mid-way, new ones (all of them at once, each
    /// file only ever old then new) from its end; the recorded hash is `packfs verify`'s.
    func testReadersSeeTheOldPackUntilTheSwitchThenTheNewOne() throws {
        let before = try downloadPack()
        _ = try touchAndWaitMidway(before)
        try checkOldPack(before)
        let watcher = ChangeWatcher(files: try changedFiles(), old: try changedContent { try self.original($0) },
                                    new: try changedContent { try self.rig.server.expectedContent($0) })
        watcher.start()
        try rig.server.release()
        waitForTheRefreshToEnd()
        watcher.stop()
        XCTAssertEqual(watcher.problems, [], "every read was the old bytes or the new ones, never back")
        XCTAssertGreaterThan(watcher.reads, 0)
        try rig.checkMountedContent("p")  // every file the new bytes, though the kernel cached the old
        let after = try XCTUnwrap(try live().packs["p"])
        XCTAssertNil(after.staged, "the refresh is over")
        XCTAssertEqual(after.members, before.members)
        for path in Self.changed { XCTAssertEqual(after.contents[path], try rig.server.expectedContent(path), path) }
        try checkFigures(after)
        try checkHashIsVerifys(after, before: before)
        rig.unmount()
    }

    /// A file opened before the switch keeps its bytes, as a file replaced by `rename` does: its
    /// size and content stay the old ones however late it is read, while the same path opened
    /// after the switch is another inode with the new bytes (`RowTag`).
    func testAFileOpenAcrossTheSwitchKeepsItsOldBytesAndThePathGivesTheNewOnes() throws {
        let before = try downloadPack()
        _ = try touchAndWaitMidway(before)
        var open: [(origin: String, path: String, fd: Int32, stat: stat)] = []
        defer { open.forEach { close($0.fd) } }
        for (origin, path) in try changedFiles().sorted(by: { $0.key < $1.key }) {
            let fd = openReadOnly(path)
            XCTAssertGreaterThanOrEqual(fd, 0, "\(path): errno \(errno)")
            var info = stat()
            XCTAssertEqual(fstat(fd, &info), 0)
            XCTAssertEqual(Int(info.st_size), try original(origin).count, origin)
            open.append((origin, path, fd, info))
        }
        XCTAssertEqual(open.count, Self.changed.count)
        try rig.server.release()
        waitForTheRefreshToEnd()
        for file in open {
            XCTAssertEqual(try readAll(file.fd), try original(file.origin), "\(file.origin): the open file reads its old bytes")
            var now = stat()
            XCTAssertEqual(stat(file.path, &now), 0)
            XCTAssertNotEqual(now.st_ino, file.stat.st_ino, "\(file.origin): the path names another inode")
            XCTAssertEqual(Int(now.st_size), try rig.server.expectedContent(file.origin).count, file.origin)
            XCTAssertEqual(FileManager.default.contents(atPath: file.path), try rig.server.expectedContent(file.origin), file.origin)
        }
        rig.unmount()
    }

    /// (b) and (c): a kill -9 mid-way leaves the old pack whole, its old hash; the next mount
    /// resumes, asks only for the held tiles, and ends with the new pack and its hash.
    func testAKillMidwayLeavesTheOldPackAndTheNextMountAsksOnlyWhatWasNotAnswered() throws {
        let before = try downloadPack()
        _ = try touchAndWaitMidway(before)
        let kill = try XCTUnwrap(try rig.kill(), "the daemon ended by itself")
        let answered = try rig.server.accessLog().map(\.uri)  // the held requests are not in it
        let pack = try XCTUnwrap(kill.snapshot.packs["p"])
        XCTAssertEqual(pack.contents, before.contents, "the live pack is the old one, byte for byte")
        XCTAssertEqual(pack.hashes, before.hashes, "and so is its recorded hash")
        XCTAssertEqual(pack.staged, Self.changed.filter { !$0.hasPrefix(Self.held) })
        try rig.server.release()
        let killed = kill.time
        try rig.mount(concurrency: 20)
        waitForTheRefreshToEnd()
        let asked = try rig.requests(after: killed)
        XCTAssertEqual(Set(asked), Set(before.members.filter { $0.hasPrefix(Self.held) }), "only what was not answered")
        XCTAssertEqual(asked.count, Self.heldTiles, "once each")
        XCTAssertTrue(Set(asked).isDisjoint(with: answered.filter { !$0.hasPrefix(Self.held) }))
        try rig.checkMountedContent("p")
        let after = try XCTUnwrap(try live().packs["p"])
        for path in Self.changed { XCTAssertEqual(after.contents[path], try rig.server.expectedContent(path), path) }
        try checkHashIsVerifys(after, before: before)
        rig.unmount()
    }

    /// A kill after the switch, before the pack is recorded complete with its hash (the state
    /// it leaves is made here by hand from a finished refresh: the new content, `active`, the
    /// refresh pending, no hash): the next mount sends nothing and records the new pack's hash.
    func testAKillBetweenTheSwitchAndItsHashIsHealedWithoutARequest() throws {
        let before = try downloadPack()
        try OriginChange.apply(to: rig.server)
        XCTAssertEqual(try Command.run("/usr/bin/touch", [packs + "/p.region"]).status, 0)
        waitForTheRefreshToEnd()
        rig.unmount()
        let switched = try XCTUnwrap(try live().packs["p"])
        try DatabaseQueue(path: rig.db).write { db in
            let id = switched.id
            try db.execute(sql: "UPDATE packfs_pack_state SET state = 'active' WHERE region_id = ?", arguments: [id])
            // Every member was stamped at or after the refresh's `since`.
            try db.execute(sql: """
                INSERT INTO packfs_refresh (region_id, since) SELECT ?1, MIN(accessed) FROM (
                  SELECT t.accessed FROM region_tiles m JOIN tiles t ON t.id = m.tile_id WHERE m.region_id = ?1
                  UNION ALL SELECT r.accessed FROM region_resources m JOIN resources r ON r.id = m.resource_id WHERE m.region_id = ?1)
                """, arguments: [id])
            try db.execute(sql: "DELETE FROM packfs_pack_hashes WHERE region_id = ?", arguments: [id])
        }
        let mounted = Date()
        try rig.mount(concurrency: 20)
        waitForTheRefreshToEnd()
        XCTAssertEqual(try rig.requests(after: mounted), [], "nothing asked again")
        let after = try XCTUnwrap(try live().packs["p"])
        XCTAssertEqual(after.contents, switched.contents)
        XCTAssertNil(after.refreshed, "the refresh is over")
        try checkHashIsVerifys(after, before: before)
        rig.unmount()
    }

    /// A suspended refresh keeps what it staged (for a resume); a new `touch` asks for
    /// everything again, and what the first one staged is never switched in: here the origin
    /// went back to the old content meanwhile, and the pack ends as it began.
    func testANewTouchAsksForEverythingAgainAndNeverSwitchesInWhatTheLastOneStaged() throws {
        let before = try downloadPack()
        _ = try touchAndWaitMidway(before)
        XCTAssertEqual(XAttr.set(packs + "/p.region", "user.packfs.state", "inactive", 8, 0), 0, "suspend: errno \(errno)")
        rig.waitForState("p", ["inactive"])
        let suspended = try XCTUnwrap(try live().packs["p"])
        XCTAssertEqual(suspended.staged, Self.changed.filter { !$0.hasPrefix(Self.held) }, "kept for a resume")
        XCTAssertEqual(suspended.contents, before.contents)
        try rig.server.release()
        try OriginChange.revert(rig.server)
        // `since` has one-second steps: a touch in the second the first began would join it.
        let first = try XCTUnwrap(try pendingSince())
        XCTAssertTrue(eventually(timeout: 5) { Int64(Date().timeIntervalSince1970) >= first })
        let touched = Date()
        XCTAssertEqual(try Command.run("/usr/bin/touch", [packs + "/p.region"]).status, 0)
        waitForTheRefreshToEnd()
        let asked = try rig.requests(after: touched)
        XCTAssertEqual(Set(asked), before.members, "everything asked again")
        let after = try XCTUnwrap(try live().packs["p"])
        XCTAssertEqual(after.contents, before.contents, "the old content, as the origin serves it again")
        XCTAssertEqual(after.hashes, before.hashes)
        XCTAssertEqual(try live().packs["p"]?.staged, nil)
        XCTAssertEqual(try DatabaseQueue(path: rig.db, configuration: readOnly).read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM packfs_staged_tiles")
        }, 0, "the dead rows went with the switch")
        try rig.checkMountedContent("p")
        rig.unmount()
    }

    // MARK: Checks

    /// Mid-way: the database holds the old pack and its hash, and the mount serves it.
    private func checkOldPack(_ before: StoreSnapshot.PackSnapshot, line: UInt = #line) throws {
        let now = try XCTUnwrap(try live().packs["p"])
        XCTAssertEqual(now.contents, before.contents, "the live rows are untouched", line: line)
        XCTAssertEqual(now.hashes, before.hashes, line: line)
        var seen = Set<String>()
        let root = packs + "/p"
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            guard let origin = CrashRig.originPath(of: relative) else { continue }
            XCTAssertEqual(FileManager.default.contents(atPath: root + "/" + relative), try original(origin), relative, line: line)
            seen.insert(origin)
        }
        // Every member with content shows (but the style, which the mount rewrites).
        let shown = before.members.filter { before.contents[$0] != .some(nil) && $0 != "/styles/bright.json" }
        XCTAssertEqual(seen, Set(shown.map { $0.removingPercentEncoding ?? $0 }), line: line)
    }

    /// After the switch, what `ls -l`/`du` and progress.json say is the new pack: each changed
    /// file's size, the pack's tile count and stored bytes.
    private func checkFigures(_ after: StoreSnapshot.PackSnapshot, line: UInt = #line) throws {
        for (origin, file) in try changedFiles() {
            let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int
            XCTAssertEqual(size, try rig.server.expectedContent(origin).count, file, line: line)
        }
        let stored = try DatabaseQueue(path: rig.db, configuration: readOnly).read { db in
            try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS tiles, SUM(LENGTH(t.data)) AS bytes FROM region_tiles m JOIN tiles t ON t.id = m.tile_id
                WHERE m.region_id = ?
                """, arguments: [after.id])
        }
        let progress = rig.progress("p")
        XCTAssertEqual(progress?["completed_tiles"]?.number.map(Int.init), stored?["tiles"], line: line)
        XCTAssertEqual(progress?["completed_tile_bytes"]?.number.map(Int.init), stored?["bytes"], line: line)
    }

    /// The recorded hash is the one `packfs verify` computes (which exits 0: the pack is sound),
    /// and it changed with the tiles.
    private func checkHashIsVerifys(_ after: StoreSnapshot.PackSnapshot, before: StoreSnapshot.PackSnapshot,
                                    line: UInt = #line) throws {
        let verify = try Packfs.run(["verify", rig.db, "p", "--json"])
        XCTAssertEqual(verify.status, 0, verify.text, line: line)
        let sources = JSONValue.parse(Data(verify.text.utf8))?["sources"]?.array ?? []
        var computed: [String: String] = [:]
        for source in sources {
            if let template = source["url_template"]?.string, let hash = source["agg_tiles_hash"]?.string { computed[template] = hash }
        }
        XCTAssertEqual(after.hashes, computed, line: line)
        let helsinki = try XCTUnwrap(after.hashes.keys.first { $0.contains("/tiles/helsinki/") }, line: line)
        XCTAssertNotEqual(after.hashes[helsinki], before.hashes[helsinki], "the changed tiles changed the hash", line: line)
    }

    // MARK: Helpers

    /// The pack `complete` with no refresh pending: a mount resuming a refresh first runs the
    /// download owed to an `active` pack, which ends `complete` a moment before the refresh
    /// starts again.
    private func waitForTheRefreshToEnd(line: UInt = #line) {
        let ended = eventually(timeout: 60) { rig.state("p") == "complete" && (try? pendingSince()) == .some(nil) }
        XCTAssertTrue(ended, "the refresh did not end: \(String(describing: rig.progress("p")))", line: line)
    }

    private var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// The `since` of the pack's pending refresh.
    private func pendingSince() throws -> Int64? {
        try DatabaseQueue(path: rig.db, configuration: readOnly).read { db in
            try db.tableExists("packfs_refresh") ? try Int64.fetchOne(db, sql: "SELECT since FROM packfs_refresh") : nil
        }
    }

    /// The database as it is now, read in place (the daemon keeps writing).
    private func live() throws -> StoreSnapshot { try StoreSnapshot.read(db: rig.db, base: rig.server.baseURL) }

    /// The world's bytes for an origin path, as the origin served them before the change.
    private func original(_ path: String) throws -> Data { try OriginChange.original(path, rig.server) }

    /// Where the changed origin paths show in the mount.
    private func changedFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: packs + "/p") {
            guard let origin = CrashRig.originPath(of: relative), Self.changed.contains(origin) else { continue }
            files[origin] = packs + "/p/" + relative
        }
        return files
    }

    /// Opens `path` read-only (POSIX: Foundation's name for `open` is taken by its own types).
    private func openReadOnly(_ path: String) -> Int32 { Glibc.open(path, O_RDONLY) }

    /// Everything `fd` reads from offset 0 to its end.
    private func readAll(_ fd: Int32) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(data.count)) }
            guard count >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    private func changedContent(_ content: (String) throws -> Data) throws -> [String: Data] {
        try Dictionary(uniqueKeysWithValues: Self.changed.map { ($0, try content($0)) })
    }
}

/// Reads the changed files of a pack through the mount, over and over, on a thread of its own:
/// each read must give the old bytes or the new ones, and a file that gave the new ones never
/// gives the old ones again.
final class ChangeWatcher: @unchecked Sendable {  // `problems`, `reads`, `seenNew` and `stopped` are guarded by `lock`
    private let files: [String: String]
    private let old: [String: Data]
    private let new: [String: Data]
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var stopped = false
    private var seenNew = Set<String>()
    private var problemList: [String] = []
    private var readCount = 0

    init(files: [String: String], old: [String: Data], new: [String: Data]) {
        self.files = files
        self.old = old
        self.new = new
    }

    var problems: [String] { lock.withLock { Array(problemList.prefix(5)) } }
    var reads: Int { lock.withLock { readCount } }

    func start() {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopped }) { pass() }
            done.signal()
        }
    }

    func stop() {
        lock.withLock { stopped = true }
        done.wait()
    }

    private func pass() {
        for (origin, file) in files.sorted(by: { $0.key < $1.key }) {
            let data = FileManager.default.contents(atPath: file)
            lock.withLock {
                readCount += 1
                if data == new[origin] {
                    seenNew.insert(origin)
                } else if data != old[origin] {
                    problemList.append("\(origin): \(data?.count ?? -1) bytes, neither old nor new")
                } else if seenNew.contains(origin) {
                    problemList.append("\(origin): the old bytes after the new ones")
                }
            }
        }
    }
}
