import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// The crash loop's bench: a fault server that answers slowly (so kills land mid-work), a
/// database, a mountpoint, the `packfs` process under test, and what each kill found.
///
/// A kill is SIGKILL at a moment chosen by a condition (so many requests arrived at the server,
/// so many files removed) plus a random delay of up to 20 ms, never by a fixed sleep. After
/// each: the dead mount is taken down, and a snapshot of the files (as the kill left them) must
/// pass `integrity_check` and `foreign_key_check`.
final class CrashRig: PacksDirectory {
    let temp: TemporaryDirectory
    let server: TestServer
    var db: String { temp.path("packs.db") }
    var mountpoint: String { temp.path("mnt") }
    var packs: String { mountpoint + "/packs" }
    var daemon: PackFSProcess?
    var figures = CrashFigures()
    private var logSerial = 0
    private var estimates: [RegionSpec: Int] = [:]

    /// In the test's directory `temp`. `slowSeconds`: every answer waits this long, so a pack at
    /// concurrency 2 takes a while.
    init(in temp: TemporaryDirectory, slowSeconds: Double = 0.02) throws {
        self.temp = temp
        try FileManager.default.createDirectory(atPath: temp.path("mnt"), withIntermediateDirectories: true)
        server = try TestServer.faultServer([
            "--rate-slow", "1", "--slow-seconds", "\(slowSeconds)", "--etag-mode", "generation",
        ])
    }

    func tearDown() {
        daemon?.kill9()
        PackFSProcess.cleanUpDeadMount(mountpoint)
        server.stop()
    }

    /// A copy of the database as it is now (a kill's leftovers and all), read.
    func snapshot() throws -> StoreSnapshot {
        try StoreSnapshot.take(db: db, base: server.baseURL, copy: temp.path("snapshot.db"))
    }

    /// A fresh database for the next round (the server's logs go on).
    func resetDatabase() throws {
        precondition(daemon == nil, "reset with the daemon running")
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
    }

    func nextLog(_ name: String) -> String {
        logSerial += 1
        return temp.path("\(name)-\(logSerial).log")
    }

    // MARK: The daemon

    func mount(concurrency: Int = 2, extra: [String] = []) throws {
        daemon = try PackFSProcess.mount(
            db: db, at: mountpoint, log: nextLog("mount"), extra: ["--concurrency", "\(concurrency)"] + extra)
    }

    /// A clean unmount (SIGTERM): the daemon records its downloads for resumption.
    func unmount() {
        if let daemon { XCTAssertEqual(daemon.terminate(), 0, daemon.logText) }
        daemon = nil
    }

    /// SIGKILLs the daemon (or `process`) after a random delay of up to 20 ms, takes down the
    /// dead mount and checks a snapshot of the files as the kill left them.
    /// Nil when `process` had ended by itself before the signal (nothing was killed).
    @discardableResult
    func kill(_ process: PackFSProcess? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Kill? {
        usleep(useconds_t.random(in: 0...20_000))
        let victim = process ?? daemon
        let time = victim?.kill9() ?? Date()
        if process == nil { daemon = nil }
        guard victim?.process.terminationReason == .uncaughtSignal else { return nil }
        let snapshot = try self.snapshot()
        figures.kills += 1
        XCTAssertEqual(snapshot.integrity, "ok", "integrity after kill \(figures.kills)", file: file, line: line)
        XCTAssertEqual(snapshot.foreignKeyErrors, 0, "foreign keys after kill \(figures.kills)", file: file, line: line)
        if snapshot.integrity == "ok" && snapshot.foreignKeyErrors == 0 { figures.integrityChecks += 1 }
        return Kill(time: time, snapshot: snapshot)
    }

    struct Kill {
        var time: Date
        var snapshot: StoreSnapshot
    }

    // MARK: The server

    /// Requests that reached the server so far (answered or not).
    func arrivalCount() -> Int {
        let data = FileManager.default.contents(atPath: server.arrivalLogPath) ?? Data()
        return data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The paths requested after `time` (by a process started after a kill at `time`); the
    /// test's own control requests (`/_control/...`) left out.
    func requests(after time: Date) throws -> [String] {
        let stamp = time.timeIntervalSince1970
        return try server.arrivals().filter { $0.time > stamp && !$0.uri.hasPrefix("/_control/") }.map(\.uri)
    }

    /// Waits until `count` requests more than `start` have arrived, or `done` holds; false when
    /// `done` came first (nothing left to kill this run in the middle of).
    func waitForArrivals(_ count: Int, after start: Int, timeout: TimeInterval = 120, done: () -> Bool) -> Bool {
        var reached = false
        var polls = 0
        let finished = eventually(timeout: timeout) {
            reached = arrivalCount() >= start + count
            polls += 1
            return reached || (polls % 5 == 0 && done())
        }
        XCTAssertTrue(finished, "neither \(count) requests arrived nor the work ended")
        return reached
    }

    /// New ETags for everything at the origin (same bytes): a refresh then stores every answer.
    func bumpOrigin() throws {
        let curl = try Command.run("/usr/bin/curl", ["-sf", server.url("/_control/bump")])
        XCTAssertEqual(curl.status, 0, curl.text)
    }

    // MARK: Packs

    func regionFile(_ spec: RegionSpec, name: String = "region") throws -> String {
        let path = temp.path("\(name).json")
        try spec.json(base: server.baseURL).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `cp region.json packs/<name>.region`, as a user would.
    func write(_ spec: RegionSpec, to name: String) throws {
        let cp = try Command.run("/bin/cp", [try regionFile(spec), "\(packs)/\(name).region"])
        XCTAssertEqual(cp.status, 0, cp.text)
    }

    /// A pack the mount gave up on (its runs cut by the last two kills: InterruptedRuns.swift),
    /// resumed as a user would (`setfattr -n user.packfs.state -v active`); true when it was.
    @discardableResult
    func resumeIfGivenUp(_ name: String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard state(name) == "error", (progress(name)?["error"]?.string ?? "").contains("stopped twice") else { return false }
        let value = "active"
        let result = XAttr.set(packs + "/\(name).region", "user.packfs.state", value, value.utf8.count, 0)
        XCTAssertEqual(result, 0, "resuming \(name): errno \(errno)", file: file, line: line)
        figures.givenUp += 1
        return true
    }

    /// Tiles plus resources the region needs, by `packfs estimate` (fetches the style and TileJSON).
    func required(_ spec: RegionSpec) throws -> Int {
        if let known = estimates[spec] { return known }
        let outcome = try Packfs.run(["estimate", "--json", try regionFile(spec, name: "estimate")])
        guard outcome.status == 0, let count = JSONValue.parse(Data(outcome.text.utf8))?["required_resources"]?.number else {
            throw PackFSProcess.Failure("estimate failed: \(outcome.text)")
        }
        estimates[spec] = Int(count)
        return Int(count)
    }
}

/// Base class of the reliability tests: each test gets a fresh `CrashRig` (its slow origin,
/// database and mountpoint), torn down after it.
class CrashRigTestCase: PackFSTestCase {
    var rig: CrashRig!
    var packs: String { rig.packs }

    /// Seconds each answer of the rig's origin waits.
    class var slowSeconds: Double { 0.02 }

    /// Regions the tests need the size of. `packfs estimate` fetches the style and TileJSON:
    /// asked before any kill, so that no request of its own is taken for a refetch.
    class var estimated: [RegionSpec] { [] }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try MountHelper.requireFUSE()
        rig = try CrashRig(in: temp, slowSeconds: Self.slowSeconds)
        for spec in Self.estimated { _ = try rig.required(spec) }
    }

    override func tearDown() {
        rig?.tearDown()
        super.tearDown()
    }

    /// Runs `round` again and again, counting the rounds, until the run's number of kills
    /// (ReliabilityRun.killsPerKind) is reached.
    func roundsUntilEnoughKills(_ round: () throws -> Void) rethrows {
        while rig.figures.kills < ReliabilityRun.killsPerKind {
            try round()
            rig.figures.rounds += 1
        }
    }
}

/// What a crash loop did, for the reliability report.
struct CrashFigures {
    var kills = 0
    var integrityChecks = 0
    var resumes = 0
    var refetches = 0
    var rounds = 0
    /// Remounts that found the pack given up (cut by two kills in a row) and resumed it.
    var givenUp = 0
    /// Removals: what the next process found after a kill.
    var wholeAfterKill = 0
    var goneAfterKill = 0
    /// Refreshes that change content: the old pack, or the new one, after a kill.
    var oldAfterKill = 0
    var newAfterKill = 0

    func report(_ name: String) {
        var figures: KeyValuePairs<String, CustomStringConvertible> = [
            "kills": kills, "integrity_ok": integrityChecks, "resumes": resumes, "refetches": refetches, "rounds": rounds,
            "given_up": givenUp,
        ]
        if wholeAfterKill + goneAfterKill > 0 {
            figures = [
                "kills": kills, "integrity_ok": integrityChecks, "resumes": resumes, "refetches": refetches,
                "rounds": rounds, "whole_after_kill": wholeAfterKill, "gone_after_kill": goneAfterKill,
            ]
        }
        if oldAfterKill + newAfterKill > 0 {
            figures = [
                "kills": kills, "integrity_ok": integrityChecks, "resumes": resumes, "refetches": refetches,
                "rounds": rounds, "given_up": givenUp, "old_after_kill": oldAfterKill, "new_after_kill": newAfterKill,
            ]
        }
        ReliabilityRun.report(name, figures)
    }
}
