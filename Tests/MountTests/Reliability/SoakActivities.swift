import Basics
import Foundation
import PackStore
import TestSupport

/// The soak's pack changes, each a loop on a thread of its own until `stop()`: a download, a
/// refresh, a redefinition and a removal, through the mount with ordinary tools. A step that
/// fails (a tool's error, a pack that does not finish within a minute) is recorded.
final class SoakActivities: @unchecked Sendable {  // `rig` is only read (its paths and server); the rest is guarded by `lock` or `LockedState`
    static let names = ["download", "refresh", "redefinition", "removal"]
    private let rig: CrashRig
    private let packs: String
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var longest: [String: TimeInterval] = [:]
    private var errors: [String] = []
    private let stopped = LockedState(false)

    init(rig: CrashRig) {
        self.rig = rig
        packs = rig.packs
    }

    var cycles: [String: Int] { lock.withLock { counts } }
    /// The longest cycle of each, in seconds.
    var slowest: [String: TimeInterval] { lock.withLock { longest } }
    var failures: [String] { lock.withLock { errors } }

    func stop() { stopped.withLock { $0 = true } }

    func start() -> DispatchGroup {
        let group = DispatchGroup()
        let regions = RegionFiles(rig: rig)
        let cycles: [(String, @Sendable () throws -> Void)] = [
            ("download", { try self.download(regions) }),
            ("refresh", { try self.refresh() }),
            ("redefinition", { try self.redefine(regions) }),
            ("removal", { try self.remove(regions) }),
        ]
        for (name, cycle) in cycles {
            group.enter()
            Thread.detachNewThread {
                while !self.stopped.withLock({ $0 }) {
                    do {
                        let started = Date()
                        try cycle()
                        let took = Date().timeIntervalSince(started)
                        self.lock.withLock {
                            self.counts[name, default: 0] += 1
                            self.longest[name] = max(self.longest[name] ?? 0, took)
                        }
                    } catch {
                        self.lock.withLock { self.errors.append("\(name): \(error)") }
                        break
                    }
                }
                group.leave()
            }
        }
        return group
    }

    /// `dl`: the world to z4 from a new slow origin (a new base URL: nothing is stored yet), then
    /// removed.
    private func download(_ regions: RegionFiles) throws {
        let origin = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
        defer { origin.stop() }
        try copy(regions.file(.world, base: origin.baseURL), to: "dl.region")
        try waitForComplete("dl")
        try run("/bin/rm", [packs + "/dl.region"])
    }

    /// `fresh`: every ETag at the origin changes, then `touch`: every row is fetched again.
    private func refresh() throws {
        try rig.bumpOrigin()
        try run("/usr/bin/touch", [packs + "/fresh.region"])
        try waitForComplete("fresh")
    }

    /// `redef`: to Helsinki at z14 and back to the world at z4 (tiles leave and come back).
    private func redefine(_ regions: RegionFiles) throws {
        for spec in [RegionSpec.helsinki, .world] {
            try copy(regions.file(spec, base: rig.server.baseURL), to: "redef.region")
            try waitForComplete("redef")
        }
    }

    /// `gone`: removed by `rm gone.region`, `rmdir gone` or `rm -r gone` in turn (the last file
    /// by file, one transaction each: slow while the other packs' downloads keep the writer
    /// busy), then made again.
    private func remove(_ regions: RegionFiles) throws {
        let way = lock.withLock { counts["removal", default: 0] % 3 }
        let commands = [("/bin/rm", [packs + "/gone.region"]), ("/bin/rmdir", [packs + "/gone"]), ("/bin/rm", ["-r", packs + "/gone"])]
        // rm -r may take minutes while the other packs' batches hold the writer (each unlink
        // waits for them); it speeds up once they stop.
        try run(commands[way].0, commands[way].1, timeout: way == 2 ? 600 : 60)
        try copy(regions.file(.world, base: rig.server.baseURL), to: "gone.region")
        try waitForComplete("gone")
    }

    private func copy(_ file: String, to name: String) throws {
        try run("/bin/cp", [file, "\(packs)/\(name)"])
    }

    private func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 60) throws {
        let outcome = try Command.run(tool, arguments, timeout: timeout)
        guard outcome.status == 0, outcome.text.isEmpty else {
            throw PackFSProcess.Failure("\(tool) \(arguments.joined(separator: " ")): \(outcome.status) \(outcome.text)")
        }
    }

    /// Until progress.json says complete (a minute at most; a stop ends the wait early).
    private func waitForComplete(_ name: String) throws {
        let done = eventually(timeout: 60) { rig.state(name) == "complete" || stopped.withLock { $0 } }
        guard done else {
            throw PackFSProcess.Failure("\(name) did not complete within a minute: \(String(describing: rig.progress(name)))")
        }
    }
}

/// Region files for the soak, one per region and origin, written once.
final class RegionFiles: @unchecked Sendable {  // `written` is guarded by `lock`
    private let directory: TemporaryDirectory
    private let lock = NSLock()
    private var written: [String: String] = [:]

    init(rig: CrashRig) { directory = rig.temp }

    func file(_ spec: RegionSpec, base: String) throws -> String {
        let text = spec.json(base: base)
        return try lock.withLock {
            if let path = written[text] { return path }
            let path = directory.path("soak-\(written.count).json")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            written[text] = path
            return path
        }
    }
}
