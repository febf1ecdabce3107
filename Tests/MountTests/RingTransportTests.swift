import Basics
import CFuse
import Foundation
import PackStore
import Synchronization
import TestSupport
import XCTest

/// FUSE over io_uring (issue 30): where the kernel offers it (`.ci/run` switches
/// /sys/module/fuse/parameters/enable_uring on for the run) every mount serves over it, so the
/// whole mount suite runs on it; these tests check that it does, that it serves what the
/// classic transport serves, and its edges: kill -9 and an unmount with requests in the rings,
/// a reader killed mid-read, notifications while serving. The classic transport keeps its
/// smoke test here (`-o io_uring=off`).
final class RingTransportTests: DaemonMountTestCase {
    override class var sharesServer: Bool { true }

    static var kernelOffersRing: Bool {
        (try? String(contentsOfFile: "/sys/module/fuse/parameters/enable_uring", encoding: .utf8))?.hasPrefix("Y") == true
    }

    /// Skips where the kernel does not offer the ring; fails in CI, which switches it on.
    private func requireRing() throws {
        guard !Self.kernelOffersRing else { return }
        let message = "FUSE over io_uring is off (/sys/module/fuse/parameters/enable_uring is not Y)"
        if isCI { XCTFail(message) }
        throw XCTSkip(message)
    }

    /// A downloaded pack of Helsinki (zooms 0-14), unmounted.
    private func makePack() throws {
        try mountPackFS(["-o", "io_uring=off"])
        try copyRegion(try regionFile("hki.json"), to: "hki")
        waitForState("hki")
        unmountPackFS()
        // The daemon ends a moment after it closes the database (longer under ThreadSanitizer):
        // until it has, `daemonPID` could find it instead of the next mount's.
        XCTAssertTrue(eventually(timeout: 30) { daemonPID() == nil }, "the first daemon ended")
    }

    /// The transport status.json names. It is null until the kernel's INIT is answered (over
    /// io_uring, until the ring threads run), which can come after the mount shows: waits for it.
    private func transport() -> String? {
        var served: String?
        _ = eventually(timeout: 30) {
            served = FileManager.default.contents(atPath: self.mount.path + "/status.json")
                .flatMap(JSONValue.parse)?["transport"]?.string
            return served != nil
        }
        return served
    }

    /// Every file under the pack, with its bytes (paths relative to the pack).
    private func packFiles() throws -> [String: Data] {
        let root = packs + "/hki"
        var files: [String: Data] = [:]
        let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: root))
        for case let path as String in walker where path.hasSuffix(".pbf") || path.hasSuffix(".json") && path != "progress.json" {
            files[path] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + path))
        }
        return files
    }

    func testTheRingServesWhatTheClassicTransportServes() throws {
        try requireRing()
        try makePack()
        try mountPackFS(["-o", "io_uring=off"])
        XCTAssertEqual(transport(), "/dev/fuse (io_uring=off)")
        let classic = try packFiles()
        unmountPackFS()
        try mountPackFS(["-o", "io_uring=on"])
        let served = try XCTUnwrap(transport())
        XCTAssertTrue(served.hasPrefix("io_uring ("), served)
        let pid = try XCTUnwrap(daemonPID())
        let before = ringWakeUps(pid)
        let ring = try packFiles()
        XCTAssertGreaterThan(classic.count, 50, "the pack has tiles")
        XCTAssertEqual(Set(ring.keys), Set(classic.keys))
        for (path, bytes) in classic { XCTAssertEqual(ring[path], bytes, path) }
        // Each request a ring thread serves wakes it: the reads went through the rings.
        XCTAssertGreaterThanOrEqual(ringWakeUps(pid) - before, classic.count / 2, "ring threads served the reads")
        unmountPackFS()
    }

    func testKillNineWithRequestsInTheRingsLeavesAMountThatMountsAgain() throws {
        let (pid, readers) = try ringMountWithReaders()
        kill(pid, SIGKILL)
        XCTAssertTrue(eventually(timeout: 30) { readers.allEnded }, "every reader saw the mount go (no read hangs)")
        XCTAssertTrue(eventually(timeout: 30) { kill(pid, 0) != 0 })
        let again = try packfs(["mount", db, mount.path, "-o", "io_uring=on"])
        XCTAssertEqual(again.status, 0, again.text)
        XCTAssertGreaterThan(try packFiles().count, 50)
        unmountPackFS()
    }

    func testAnUnmountWithRequestsInFlightEndsTheDaemon() throws {
        let (pid, readers) = try ringMountWithReaders()
        XCTAssertEqual(MountHelper.runTool("/usr/bin/fusermount3", ["-u", "-z", mount.path]).status, 0)
        XCTAssertTrue(eventually(timeout: 30) { readers.allEnded }, "every reader saw the mount go")
        XCTAssertTrue(eventually(timeout: 30) { kill(pid, 0) != 0 }, "the daemon exited")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "the daemon closed the database")
    }

    /// A reader killed mid-read (the kernel interrupts its request), renames and removals while
    /// others read (the daemon's invalidations go out on /dev/fuse while the rings serve).
    func testKilledReadersAndNotificationsWhileServing() throws {
        try requireRing()
        try makePack()
        try mountPackFS(["-o", "io_uring=on"])
        let readers = Readers(root: packs + "/hki", count: 2)
        for _ in 0..<5 {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sh")
            child.arguments = ["-c", "find '\(packs)/hki' -name '*.pbf' -exec cat {} + > /dev/null"]
            try child.run()
            XCTAssertTrue(eventually(timeout: 30) { readers.reads > 0 })
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let sample = try packFiles()
        XCTAssertEqual(rename(packs + "/hki", packs + "/renamed"), 0, String(cString: strerror(errno)))
        let listed = try FileManager.default.contentsOfDirectory(atPath: packs)
        XCTAssertTrue(listed.contains("renamed") && !listed.contains("hki"), "\(listed)")
        XCTAssertEqual(rename(packs + "/renamed", packs + "/hki"), 0, String(cString: strerror(errno)))
        XCTAssertEqual(try packFiles(), sample, "the mount serves the same files after the readers were killed")
        readers.stop()
        XCTAssertTrue(eventually(timeout: 30) { readers.allEnded })
        unmountPackFS()
    }

    /// The kernel hands a queue the requests of the processes on its CPU. While the machine has a
    /// spare core each ring thread keeps to its queue's CPU (a serial reader's requests then wake no
    /// other core); while it has none they may run on every CPU the daemon may, since pinned, a busy
    /// CPU's callers starved the only threads serving them (SoakTests' reads waited over 10 s).
    func testRingThreadsKeepToTheirQueuesCPUOnlyWhileACoreIsSpare() throws {
        try requireRing()
        try mountPackFS(["-o", "io_uring=on"])
        let served = try XCTUnwrap(transport())
        XCTAssertTrue(served.hasPrefix("io_uring ("), served)
        let pid = try XCTUnwrap(daemonPID())
        let every = try XCTUnwrap(Self.allowedCPUs("/proc/\(pid)/status").flatMap(Self.cpus))
        var rings: [String] = []
        XCTAssertTrue(eventually(timeout: 30) {
            rings = self.ringThreads(pid)
            return rings.count >= 4
        }, "the ring threads run")
        // A thread asks after a request, at most every 100 ms. Lookups of new names, made from every
        // CPU (a queue gets its CPU's requests only), reach each queue; the threads that served them
        // (they slept since) show where they may run.
        let status = { (task: String) in "/proc/\(pid)/task/\(task)/status" }
        let serving = { () -> [Set<Int>] in
            let before = rings.map { Self.voluntarySwitches(status($0)) }
            Self.lookUpNewNames(in: self.packs, from: every)
            return zip(rings, before).compactMap { task, count in
                Self.voluntarySwitches(status(task)) == count ? nil : Self.allowedCPUs(status(task)).flatMap(Self.cpus) ?? []
            }
        }
        let spinners = Spinners(count: 3 * ProcessInfo.processInfo.activeProcessorCount + 1)
        XCTAssertTrue(eventually(timeout: 60) {
            let served = serving()
            return !served.isEmpty && served.allSatisfy { $0 == every }
        }, "busy: the ring threads serving may run on every CPU")
        spinners.stop()
        XCTAssertTrue(eventually(timeout: 60) {
            let served = serving()
            return served.allSatisfy { $0.count == 1 } && Set(served.flatMap { $0 }) == every
        }, "idle again: each queue's serving thread keeps to its CPU")
        unmountPackFS()
    }

    /// 20 lookups of names nobody made, from a thread kept to each of `cpus`.
    private static func lookUpNewNames(in directory: String, from cpus: Set<Int>) {
        let group = DispatchGroup()
        for cpu in cpus {
            group.enter()
            Thread.detachNewThread {
                _ = packfs_pin_this_thread(Int32(cpu))
                for _ in 0..<20 {
                    var info = stat()
                    _ = stat(directory + "/nothing-\(UUID().uuidString)", &info)
                }
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + 30)
    }

    private static func voluntarySwitches(_ statusPath: String) -> Int? {
        let status = (try? String(contentsOfFile: statusPath, encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            .flatMap { Int($0.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// Threads that keep every core busy until stopped.
    private final class Spinners: Sendable {
        private let running = Atomic<Bool>(true)
        private let group = DispatchGroup()

        init(count: Int) {
            for _ in 0..<count {
                group.enter()
                Thread.detachNewThread { [self] in
                    var spin = 0
                    while running.load(ordering: .relaxed) { spin &+= 1 }
                    group.leave()
                }
            }
        }

        func stop() {
            running.store(false, ordering: .relaxed)
            _ = group.wait(timeout: .now() + 30)
        }
    }

    /// The CPUs of a list such as "0-3,6".
    private static func cpus(_ list: String) -> Set<Int>? {
        var cpus = Set<Int>()
        for part in list.split(separator: ",") {
            let ends = part.split(separator: "-").map { Int($0) }
            guard let first = ends.first ?? nil, let last = ends.last ?? nil, first <= last, ends.count <= 2 else { return nil }
            cpus.formUnion(first...last)
        }
        return cpus
    }

    /// Without `-o io_uring=`, the mount serves over io_uring where the kernel offers it and
    /// over /dev/fuse, saying why, where it does not (`auto`).
    func testTheDefaultIsTheRingWhereTheKernelOffersIt() throws {
        try mountPackFS([])
        let served = try XCTUnwrap(transport())
        if Self.kernelOffersRing {
            XCTAssertTrue(served.hasPrefix("io_uring ("), served)
        } else {
            XCTAssertEqual(served, "/dev/fuse (io_uring: the kernel does not offer it)")
        }
    }

    func testAnUnknownIOURingModeIsRefusedInOneLine() throws {
        let outcome = try packfs(["mount", db, mount.path, "-o", "io_uring=sometimes"])
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue(outcome.text.contains("io_uring=sometimes"), outcome.text)
        XCTAssertFalse(mount.isMounted)
    }

    func testIOURingOnFailsTheMountWhereTheKernelDoesNotOfferIt() throws {
        guard !Self.kernelOffersRing else { throw XCTSkip("the kernel offers FUSE over io_uring here") }
        let outcome = try packfs(["mount", db, mount.path, "-o", "io_uring=on"])
        XCTAssertEqual(outcome.status, 1, outcome.text)
        XCTAssertTrue(outcome.text.contains("enable_uring"), outcome.text)
        XCTAssertFalse(mount.isMounted)
    }

    /// The pack on a mount over io_uring, with 4 readers reading it: the daemon's pid and the readers.
    private func ringMountWithReaders() throws -> (Int32, Readers) {
        try requireRing()
        try makePack()
        try mountPackFS(["-o", "io_uring=on"])
        let pid = try XCTUnwrap(daemonPID())
        let readers = Readers(root: packs + "/hki", count: 4)
        XCTAssertTrue(eventually(timeout: 60) { readers.reads > 20 }, "the readers read")
        return (pid, readers)
    }

    /// The daemon serving this test's mount.
    private func daemonPID() -> Int32? {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.first { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.count > 2 && arguments[1] == "mount" && arguments.contains(mount.path)
        }
    }

    /// The daemon's ring threads (named packfs-ring), by task id.
    private func ringThreads(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.filter { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.hasPrefix("packfs-ring") == true
        }
    }

    /// The CPUs a task may run on, as its status file lists them (`0-1`).
    private static func allowedCPUs(_ statusPath: String) -> String? {
        let status = (try? String(contentsOfFile: statusPath, encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?
            .dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
    }


    private func ringWakeUps(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { sum, task in
            let base = "/proc/\(pid)/task/\(task)"
            guard let name = try? String(contentsOfFile: base + "/comm", encoding: .utf8), name.hasPrefix("packfs-ring"),
                let status = try? String(contentsOfFile: base + "/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
                let count = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
            else { return sum }
            return sum + count
        }
    }
}

/// Threads reading every .pbf under a directory over and over (each read a fresh open, with
/// O_DIRECT so that it reaches the daemon), until stopped or a read fails.
private final class Readers: Sendable {
    private let state = LockedState((reads: 0, ended: 0, stopped: false))
    private let count: Int

    init(root: String, count: Int) {
        self.count = count
        let files = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".pbf") }.map { root + "/" + $0 }
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                defer { state.withLock { $0.ended += 1 } }
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 4096)
                defer { buffer.deallocate() }
                while !state.withLock({ $0.stopped }) {
                    for path in files.shuffled() {
                        let fd = open(path, O_RDONLY | Self.direct)
                        guard fd >= 0 else { return }
                        let got = read(fd, buffer, 1 << 20)
                        close(fd)
                        guard got >= 0 else { return }
                        state.withLock { $0.reads += 1 }
                    }
                }
            }
        }
    }

    /// O_DIRECT, which Glibc's module does not export to Swift (its value differs by architecture).
    private static let direct: Int32 = {
        #if arch(arm64)
        return 0o200000
        #else
        return 0o40000
        #endif
    }()

    var reads: Int { state.withLock { $0.reads } }
    var allEnded: Bool { state.withLock { $0.ended == count } }
    func stop() { state.withLock { $0.stopped = true } }
}
