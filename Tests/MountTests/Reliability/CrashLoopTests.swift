import Foundation
import TestSupport
import XCTest

/// docs/design.md §1 and §2: "a crash at any instant leaves a database that opens, passes integrity_check
/// and holds every committed batch"; "killing the daemon loses nothing that was stored". The
/// `packfs mount` daemon is SIGKILLed again and again during downloads, refreshes,
/// redefinitions and removals (ReliabilityRun.killsPerKind of each); after every kill the
/// files pass integrity_check, the next mount resumes the work, and it ends with the pack the
/// definition describes, byte for byte, without fetching anything that was stored at the kill.
final class CrashLoopTests: CrashRigTestCase {
    override class var estimated: [RegionSpec] { [.helsinki, .helsinkiLow, .world] }
    var target: Int { ReliabilityRun.killsPerKind }

    /// Kills the daemon after a random number of requests (up to `most`) arrived, remounts, and
    /// repeats until the work is done (`done`) or the target is reached; returns the kills.
    /// A restart after which requests went on or the work ended counts as a resume.
    private func killRepeatedly(most: Int, done: () -> Bool) throws -> [CrashRig.Kill] {
        var kills: [CrashRig.Kill] = []
        var start = rig.arrivalCount()
        while rig.figures.kills < target,
              rig.waitForArrivals(Int.random(in: 1...most), after: start, done: done) {
            if !kills.isEmpty { rig.figures.resumes += 1 }  // the last restart sent requests
            kills.append(try XCTUnwrap(try rig.kill(), "the daemon ended by itself"))
            try rig.mount()
            // From the second kill in a row on, the mount gives the pack up (a kill that lands
            // just after the run ended does not count, so this is at most, not exactly).
            if rig.resumeIfGivenUp("p") { XCTAssertGreaterThanOrEqual(kills.count, 2, "given up after one kill") }
            start = rig.arrivalCount()
        }
        if !kills.isEmpty, rig.daemon != nil {
            rig.waitForState("p")
            rig.figures.resumes += 1  // the last restart finished the work
        }
        return kills
    }

    /// A first download of Helsinki to z14 (322 resources), killed every 1-40 requests.
    func testKillingTheDaemonDuringDownloads() throws {
        try roundsUntilEnoughKills {
            try rig.resetDatabase()
            try rig.mount()
            try writeKilled(.helsinki, most: 40)
            rig.unmount()
        }
        rig.figures.report("crash-mount-download")
    }

    /// `touch packs/p.region` after the origin gave everything a new ETag (so every answer is
    /// a 200) and changed a few tiles and a sprite (`OriginChange`, back and forth from round to
    /// round), killed every 1-40 requests: each kill leaves the old pack or the new one, never a
    /// mix, and the next mount goes on with the refresh where it was, asking nothing it had
    /// already revalidated or staged.
    func testKillingTheDaemonDuringRefreshes() throws {
        try downloadFast(.helsinki)
        try rig.mount()
        try roundsUntilEnoughKills {
            try rig.bumpOrigin()
            try OriginChange.toggle(rig.server)
            let before = try XCTUnwrap(try rig.snapshot().packs["p"])
            let touched = Date()
            let touch = try Command.run("/usr/bin/touch", [rig.packs + "/p.region"])
            XCTAssertEqual(touch.status, 0, touch.text)
            let members = try rig.snapshot().packs["p"]?.members ?? []
            let refreshed = { (try? Set(self.rig.requests(after: touched)).isSuperset(of: members)) ?? false }
            let kills = try killRepeatedly(most: 40) { rig.state("p") == "complete" && refreshed() }
            XCTAssertTrue(eventually(timeout: 120) { rig.state("p") == "complete" && refreshed() }, "the refresh ended")
            try rig.checkRefreshResumed("p", touched: touched, kills: kills)
            try rig.checkOldOrNew("p", kills, before: before)
            try rig.verifyPack("p", .helsinki)
        }
        rig.unmount()
        rig.figures.report("crash-mount-refresh")
    }

    /// Helsinki to z14 redefined to the world to z4 (about 340 new tiles), killed every 1-60
    /// requests; then back to Helsinki to z11 (tiles leave, nothing to fetch), killed just
    /// after the write.
    func testKillingTheDaemonDuringRedefinitions() throws {
        try roundsUntilEnoughKills {
            try downloadFast(.helsinki)
            try rig.mount()
            try writeKilled(.world, most: 60)
            if rig.figures.kills < target {
                try rig.write(.helsinkiLow, to: "p")
                let kill = try XCTUnwrap(try rig.kill(), "the daemon ended by itself")
                try rig.mount()
                rig.waitForState("p")
                rig.figures.resumes += 1
                try rig.verifyPack("p", .helsinkiLow)
                try rig.checkNoRefetch([kill])
            }
            rig.unmount()
        }
        rig.figures.report("crash-mount-redefine")
    }

    /// `spec` written as pack p, the daemon killed every 1-`most` requests until the pack is
    /// complete; then it is `spec`'s and nothing stored was fetched again.
    private func writeKilled(_ spec: RegionSpec, most: Int) throws {
        try rig.write(spec, to: "p")
        let kills = try killRepeatedly(most: most) { rig.state("p") == "complete" }
        rig.waitForState("p")
        try rig.verifyPack("p", spec)
        try rig.checkNoRefetch(kills)
    }

    /// A fresh database holding `spec` as pack p, downloaded at full concurrency, unmounted.
    func downloadFast(_ spec: RegionSpec) throws {
        try rig.resetDatabase()
        try rig.mount(concurrency: 20)
        try rig.write(spec, to: "p")
        rig.waitForState("p")
        rig.unmount()
    }
}
