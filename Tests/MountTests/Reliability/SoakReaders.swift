import Basics
import Foundation
import PackStore
import TestSupport

/// Many threads reading files of a mount and comparing each with its expected bytes, while
/// packs change under them. Every read is exact, or a clean ENOENT where the file may vanish
/// (its pack is removed, redefined or still downloading); anything else is a failure. Each
/// read has a deadline: `overdue` names any read under way for longer, so a hang fails the
/// run with what hung instead of hanging it.
final class SoakReaders: @unchecked Sendable {  // `stats` and `current` are guarded by `lock`
    struct Target {
        var path: String
        var expected: Data
        /// Its pack may be removed, redefined or not yet downloaded: ENOENT is a clean answer.
        var mayVanish: Bool
    }

    struct Stats {
        var reads = 0
        var exact = 0
        var missing = 0
        var listings = 0
        var failures: [String] = []
        /// The longest read or listing that ended, and its path: how close the run came to a hang.
        var slowest: (seconds: TimeInterval, path: String) = (0, "")
    }

    private let targets: [Target]
    private let directories: [String]
    private let lock = NSLock()
    private var stats = Stats()
    private var current: [Int: (path: String, started: Date)] = [:]
    private let stopped = LockedState(false)

    /// `directories`: listed now and then (readdir while packs change: no error but ENOENT).
    init(targets: [Target], directories: [String]) {
        self.targets = targets
        self.directories = directories
    }

    var figures: Stats { lock.withLock { stats } }

    func stop() { stopped.withLock { $0 = true } }

    /// Starts `count` reader threads; they run until `stop()`. Returns a group to wait on.
    func start(_ count: Int) -> DispatchGroup {
        let group = DispatchGroup()
        for reader in 0..<count {
            group.enter()
            Thread.detachNewThread {
                self.loop(reader)
                group.leave()
            }
        }
        return group
    }

    /// Reads under way for longer than `limit`: the path and for how long.
    func overdue(_ limit: TimeInterval) -> [String] {
        let now = Date()
        return lock.withLock {
            current.values.filter { now.timeIntervalSince($0.started) > limit }
                .map { "\($0.path) (\(Int(now.timeIntervalSince($0.started))) s)" }
        }
    }

    private func loop(_ reader: Int) {
        var generator = SystemRandomNumberGenerator()
        while !stopped.withLock({ $0 }) {
            if Int.random(in: 0..<50, using: &generator) == 0, let directory = directories.randomElement(using: &generator) {
                list(directory, reader: reader)
                continue
            }
            guard let target = targets.randomElement(using: &generator) else { return }
            // Half the reads drop the file's cached pages first, so they reach the daemon.
            read(target, reader: reader, cold: Bool.random(using: &generator))
        }
    }

    private func read(_ target: Target, reader: Int, cold: Bool) {
        begin(reader, target.path)
        let outcome = Self.readFile(target.path, cold: cold)
        lock.withLock {
            end(reader)
            stats.reads += 1
            switch outcome {
            case .success(let data) where data == target.expected: stats.exact += 1
            case .success(let data): stats.failures.append("\(target.path): \(data.count) wrong bytes")
            case .failure(let error) where error.code == ENOENT && target.mayVanish: stats.missing += 1
            case .failure(let error): stats.failures.append("\(target.path): \(String(cString: strerror(error.code)))")
            }
        }
    }

    private func list(_ directory: String, reader: Int) {
        begin(reader, directory + "/")
        let code = Self.listDirectory(directory)
        lock.withLock {
            end(reader)
            stats.listings += 1
            if code != 0 && code != ENOENT { stats.failures.append("readdir \(directory): \(String(cString: strerror(code)))") }
        }
    }

    private func begin(_ reader: Int, _ path: String) {
        lock.withLock { current[reader] = (path, Date()) }
    }

    /// Called holding `lock`.
    private func end(_ reader: Int) {
        guard let (path, started) = current.removeValue(forKey: reader) else { return }
        let seconds = Date().timeIntervalSince(started)
        if seconds > stats.slowest.seconds { stats.slowest = (seconds, path) }
    }

    struct Errno: Error {
        var code: Int32
    }

    /// open + read(2) to the end + close: the bytes, or the errno of the failing call.
    static func readFile(_ path: String, cold: Bool) -> Result<Data, Errno> {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return .failure(Errno(code: errno)) }
        defer { close(fd) }
        if cold { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 { return .failure(Errno(code: errno)) }
            if count == 0 { return .success(data) }
            data.append(buffer, count: count)
        }
    }

    /// opendir + readdir to the end: 0, or the errno that stopped it.
    static func listDirectory(_ path: String) -> Int32 {
        guard let stream = opendir(path) else { return errno }
        defer { closedir(stream) }
        errno = 0
        while readdir(stream) != nil {}
        return errno
    }
}

/// The daemon's memory over the run, from /proc/<pid>/status (VmRSS, VmHWM), in KiB.
final class MemorySampler: @unchecked Sendable {  // `samples` is guarded by `lock`
    struct Sample {
        var time: TimeInterval
        var rss: Int
        var hwm: Int
    }

    private let pid: Int32
    private let lock = NSLock()
    private var samples: [Sample] = []
    private let started = Date()

    init(pid: Int32) { self.pid = pid }

    var all: [Sample] { lock.withLock { samples } }

    /// One sample now (none when the process is gone).
    func sample() {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
        func field(_ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
        }
        guard let rss = field("VmRSS"), let hwm = field("VmHWM") else { return }
        let sample = Sample(time: Date().timeIntervalSince(started), rss: rss, hwm: hwm)
        lock.withLock { samples.append(sample) }
    }

    /// Median RSS of the samples taken in [from, to) seconds of the run.
    func medianRSS(from: TimeInterval, to: TimeInterval) -> Int? {
        let window = all.filter { $0.time >= from && $0.time < to }.map(\.rss).sorted()
        return window.isEmpty ? nil : window[window.count / 2]
    }
}
