import Foundation
import TestSupport
import XCTest

/// The crash loop for the commands that change a database without a mount: `packfs download`
/// (a first download, and a redefinition), `packfs refresh` and `packfs remove`, SIGKILLed
/// again and again (ReliabilityRun.killsPerKind of each). They keep the file in DELETE journal
/// mode, so each kill may leave a hot journal for the next run to roll back. After every kill
/// the files pass integrity_check; running the command again resumes and completes the work,
/// fetching nothing that was stored; the content is checked byte for byte through a mount.
final class CommandCrashTests: CrashRigTestCase {
    override class var estimated: [RegionSpec] { [.helsinki, .world] }
    var target: Int { ReliabilityRun.killsPerKind }
    var packfs: String { Packfs.path }

    /// Runs `packfs <arguments>` and kills it after 1-`most` requests arrived, again and again,
    /// until a run exits by itself (it must succeed) or the target is reached; then runs it to
    /// its end. A run after a kill that sent requests or finished counts as a resume.
    private func runKilled(_ arguments: [String], most: Int) throws -> [CrashRig.Kill] {
        var kills: [CrashRig.Kill] = []
        while true {
            let run = try PackFSProcess.command(arguments, log: rig.nextLog("command"))
            let start = rig.arrivalCount()
            let interrupted = rig.figures.kills < target
                && rig.waitForArrivals(Int.random(in: 1...most), after: start) { !run.isRunning }
            if !kills.isEmpty && interrupted { rig.figures.resumes += 1 }  // it sent requests
            if interrupted, let kill = try rig.kill(run) {
                kills.append(kill)
                continue
            }
            XCTAssertTrue(run.waitForExit(timeout: 120), "packfs \(arguments[0]) ended")
            XCTAssertEqual(run.process.terminationStatus, 0, run.logText)
            if !kills.isEmpty { rig.figures.resumes += 1 }  // it finished the work
            return kills
        }
    }

    func testKillingPackfsDownload() throws {
        try roundsUntilEnoughKills {
            try rig.resetDatabase()
            try downloadKilled(.helsinki, most: 40)
        }
        rig.figures.report("crash-download-download")
    }

    /// Helsinki to z14 redefined to the world to z4 by `packfs download` with the new region.
    func testKillingPackfsDownloadRedefining() throws {
        try roundsUntilEnoughKills {
            try rig.resetDatabase()
            try download("p", .helsinki)
            try downloadKilled(.world, most: 60)
        }
        rig.figures.report("crash-download-redefine")
    }

    /// `packfs download` of `spec` into pack p, killed every 1-`most` requests until it completes;
    /// then the pack is `spec`'s and nothing stored was fetched again.
    private func downloadKilled(_ spec: RegionSpec, most: Int) throws {
        let kills = try runKilled(["download", rig.db, "p", try rig.regionFile(spec), "--concurrency", "2"], most: most)
        try checkPack("p", spec)
        try rig.checkNoRefetch(kills)
    }

    /// `packfs refresh` after the origin gave everything a new ETag and changed a few files
    /// (`OriginChange`): each kill leaves the old pack or the new one; run again after a kill,
    /// it goes on with the pending refresh.
    func testKillingPackfsRefresh() throws {
        try download("p", .helsinki)
        try roundsUntilEnoughKills {
            try rig.bumpOrigin()
            try OriginChange.toggle(rig.server)
            let before = try XCTUnwrap(try rig.snapshot().packs["p"])
            let touched = Date()
            let kills = try runKilled(["refresh", rig.db, "p", "--concurrency", "2"], most: 40)
            try rig.checkRefreshResumed("p", touched: touched, kills: kills)
            try rig.checkOldOrNew("p", kills, before: before)
            try checkPack("p", .helsinki)
        }
        rig.figures.report("crash-download-refresh")
    }

    /// `packfs remove` of the world pack (one transaction, then the vacuum), killed a random
    /// moment after it opened the database: the pack is whole or gone, the other pack keeps all
    /// of its own, and downloading the pack again fetches nothing.
    func testKillingPackfsRemove() throws {
        try download("big", .world)
        try download("keep", .helsinki)
        let before = try rig.snapshot()
        while rig.figures.kills < target {
            let remove = try PackFSProcess.command(["remove", rig.db, "big"], log: rig.nextLog("remove"))
            _ = eventually(timeout: 30) { remove.hasOpen(rig.db) || !remove.isRunning }
            guard let kill = try rig.kill(remove) else { continue }  // it finished first: again
            let big = kill.snapshot.packs["big"]?.members
            XCTAssertTrue(big == nil || big == before.packs["big"]?.members, "whole or gone: \(big?.count ?? 0) files")
            XCTAssertEqual(kill.snapshot.packs["keep"]?.members, before.packs["keep"]?.members)
            if big == nil { rig.figures.goneAfterKill += 1 } else { rig.figures.wholeAfterKill += 1 }
            if big != nil { XCTAssertEqual(try Command.run(packfs, ["remove", rig.db, "big"]).status, 0) }
            rig.figures.resumes += 1
            let requests = rig.arrivalCount()
            try download("big", .world)
            XCTAssertEqual(rig.arrivalCount(), requests, "nothing stored was fetched again")
            XCTAssertEqual(try rig.snapshot().packs["big"]?.members,
                           before.packs["big"]?.members)
            rig.figures.rounds += 1
        }
        try checkPack("keep", .helsinki)
        rig.figures.report("crash-download-remove")
    }

    /// `packfs download` at full concurrency, no kill.
    private func download(_ name: String, _ spec: RegionSpec) throws {
        let outcome = try Command.run(packfs, ["download", rig.db, name, try rig.regionFile(spec)])
        XCTAssertEqual(outcome.status, 0, outcome.text)
    }

    /// Complete, holding what `spec` needs, every file byte-exact through a mount.
    private func checkPack(_ name: String, _ spec: RegionSpec) throws {
        try rig.verifyPack(name, spec)
        try rig.mount()
        try rig.checkMountedContent(name)
        rig.unmount()
    }
}
