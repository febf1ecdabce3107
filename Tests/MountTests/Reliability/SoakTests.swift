import Foundation
import TestSupport
import XCTest

/// docs/design.md §6: "many readers in parallel with a download and a removal: every read returns the
/// exact bytes or a clean ENOENT, never EIO". For ReliabilityRun.soakSeconds, twelve threads
/// read tiles, glyphs, sprites, TileJSON and style.json of five packs through the mount
/// (half of them cold, past the page cache) and list directories, while at once:
/// - `dl` downloads (each cycle from a new slow origin, so everything is really fetched),
/// - `fresh` is refreshed (`touch`, after the origin changed every ETag: every row rewritten),
/// - `redef` is redefined back and forth (Helsinki to z14, the world to z4),
/// - `gone` is removed (`rm -r`, or `rm gone.region`) and made again,
/// and `still` is left alone. Reads of `still` and `fresh` must be exact; of the others exact
/// or ENOENT. No read may take over 10 s (a hang fails the run, naming the file). The daemon's
/// resident memory, sampled every half second, must not grow by more than `rssGrowthBound`
/// between the first and the last quarter after warm-up.
final class SoakTests: CrashRigTestCase {
    /// KiB the median RSS may grow from the first to the last quarter of the run after warm-up.
    static let rssGrowthBound = 16 * 1024
    override class var slowSeconds: Double { 0.005 }

    func testReadersWhileADownloadARefreshARedefinitionAndARemovalRun() throws {
        try rig.mount(concurrency: 20)
        let targets = try makePacks()
        let pid = try XCTUnwrap(rig.daemon?.pid)
        let readers = SoakReaders(targets: targets, directories: ["still", "dl", "redef", "gone"].map { "\(packs)/\($0)/4" }
            + ["\(packs)", "\(packs)/redef", "\(packs)/gone/glyphs/Noto Sans Regular"])
        let activities = SoakActivities(rig: rig)
        let memory = MemorySampler(pid: pid)
        let seconds = ReliabilityRun.soakSeconds
        let reading = readers.start(12)
        let working = activities.start()
        var hung: [String] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, hung.isEmpty {
            memory.sample()
            hung = readers.overdue(10)
            usleep(500_000)
        }
        activities.stop()
        readers.stop()
        if !hung.isEmpty { rig.daemon?.kill9() }  // the hung reads return (ENOTCONN) once it is gone
        XCTAssertEqual(hung, [], "reads that hung")
        XCTAssertEqual(reading.wait(timeout: .now() + 30), .success, "the readers stopped: \(readers.overdue(0))")
        XCTAssertEqual(working.wait(timeout: .now() + 120), .success, "the activities stopped")
        try report(readers.figures, activities, memory, seconds: seconds)
        guard hung.isEmpty else { return }
        for target in targets where !target.mayVanish {
            XCTAssertEqual(try SoakReaders.readFile(target.path, cold: true).get(), target.expected, target.path)
        }
        rig.unmount()
    }

    /// `still`, `fresh` (Helsinki), `redef`, `gone` (the world to z4), complete, and what the
    /// readers read: every file of each, with its bytes (style.json as `still` shows it now);
    /// for `dl`, the tiles and glyphs of the world pack (their bytes are the same from any origin).
    private func makePacks() throws -> [SoakReaders.Target] {
        for (name, spec) in [("still", RegionSpec.helsinki), ("fresh", .helsinki), ("redef", .helsinki), ("gone", .world)] {
            try rig.write(spec, to: name)
            rig.waitForState(name)
        }
        var targets = try files(of: "still", mayVanish: false) + files(of: "fresh", mayVanish: false)
        targets += try files(of: "gone", mayVanish: true)
        let helsinki = try files(of: "redef", mayVanish: true)
        try rig.write(.world, to: "redef")
        rig.waitForState("redef")
        let world = try files(of: "redef", mayVanish: true)
        targets += world + helsinki.filter { file in !world.contains { $0.path == file.path } }
        targets += try files(of: "gone", mayVanish: true).filter { !$0.path.hasSuffix(".json") }.map { file in
            var moved = file
            moved.path = file.path.replacingOccurrences(of: "/gone/", with: "/dl/")
            return moved
        }
        return targets
    }

    private func files(of name: String, mayVanish: Bool) throws -> [SoakReaders.Target] {
        let root = "\(packs)/\(name)"
        var targets: [SoakReaders.Target] = []
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            if relative == "style.json", !mayVanish {
                targets.append(.init(path: root + "/style.json", expected: try XCTUnwrap(FileManager.default.contents(atPath: root + "/style.json")), mayVanish: false))
            }
            guard let origin = CrashRig.originPath(of: relative) else { continue }
            targets.append(.init(path: root + "/" + relative, expected: try rig.server.expectedContent(origin), mayVanish: mayVanish))
        }
        return targets
    }

    private func report(_ reads: SoakReaders.Stats, _ activities: SoakActivities, _ memory: MemorySampler, seconds: Double) throws {
        XCTAssertEqual(reads.failures.prefix(10), [], "\(reads.failures.count) failed reads")
        XCTAssertEqual(activities.failures.prefix(10), [], "activities")
        let cycles = activities.cycles
        let samples = memory.all
        print(String(format: "soak: slowest read %.2f s (%@)", reads.slowest.seconds, reads.slowest.path))
        print("soak: slowest cycles \(activities.slowest.mapValues { String(format: "%.1f s", $0) })")
        let step = max(1, samples.count / 12)
        print("soak: RSS KiB every \(Double(step) / 2) s: \(stride(from: 0, to: samples.count, by: step).map { samples[$0].rss })")
        for name in SoakActivities.names { XCTAssertGreaterThan(cycles[name] ?? 0, 0, "\(name) ran") }
        let warm = seconds / 4, quarter = (seconds - warm) / 4
        let first = try XCTUnwrap(memory.medianRSS(from: warm, to: warm + quarter), "samples")
        let last = try XCTUnwrap(memory.medianRSS(from: seconds - quarter, to: seconds + 1), "samples")
        // Under a sanitizer (scripts/sanitize.sh) the shadow memory grows with every address
        // touched: the figures are reported, the bound holds for the plain build.
        let sanitized = ["TSAN_OPTIONS", "ASAN_OPTIONS"].contains { ProcessInfo.processInfo.environment[$0] != nil }
        if !sanitized { XCTAssertLessThan(last - first, Self.rssGrowthBound, "RSS grew from \(first) to \(last) KiB") }
        ReliabilityRun.report("soak", [
            "seconds": Int(seconds), "readers": 12, "reads": reads.reads, "exact": reads.exact, "enoent": reads.missing,
            "errors": reads.failures.count, "listings": reads.listings, "downloads": cycles["download"] ?? 0,
            "refreshes": cycles["refresh"] ?? 0, "redefinitions": cycles["redefinition"] ?? 0,
            "removals": cycles["removal"] ?? 0, "rss_samples": samples.count,
            "rss_min_kib": samples.map(\.rss).min() ?? 0, "rss_max_kib": samples.map(\.rss).max() ?? 0,
            "rss_first_quarter_kib": first, "rss_last_quarter_kib": last, "hwm_kib": samples.last?.hwm ?? 0,
        ])
    }
}
