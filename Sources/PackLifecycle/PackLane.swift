import Basics
import Downloader
import FoundationEssentials
import PackStore
import Dispatch

/// One pack's serial executor: the run under way and the requests queued behind it (see the
/// target's header for the rules). A lane, once closed, runs nothing more.
final class PackLane: @unchecked Sendable {  // every `var` is guarded by `lock`
    typealias Mode = PackDownload.Mode

    /// What `close()` found: the run it cut (or was about to start) and the requests it dropped.
    struct Closing {
        var cutRun: Mode?
        var dropped: [Mode]
    }

    let region: RegionID
    private let runner: PackRunner
    private let queue: DispatchQueue
    private let lock = Lock()
    /// Entered while the executor drains: `waitUntilStopped` waits for it to leave.
    private let busy = DispatchGroup()
    private var queued: [Mode] = []
    private var running: (run: PackDownload, mode: Mode)?
    /// Taken off the queue, its run being made (the definition read).
    private var starting: Mode?
    /// Bumped by each request that cuts the run under way: a run made meanwhile is cut at once.
    private var cuts = 0
    private var draining = false
    private var closed: Bool

    init(region: RegionID, runner: PackRunner, closed: Bool = false) {
        self.region = region
        self.runner = runner
        self.closed = closed
        queue = DispatchQueue(label: "packfs.pack.\(region.rawValue)")
    }

    /// Queues a run of `mode` (see the header); false when the lane is closed.
    func request(_ mode: Mode) -> Bool {
        let start = lock.withLock { () -> (cut: PackDownload?, drain: Bool)? in
            guard !closed else { return nil }
            if !queued.contains(mode) { queued.append(mode) }
            if mode == .download { cuts += 1 }
            let drain = !draining
            if drain {
                draining = true
                busy.enter()
            }
            return (mode == .download ? running?.run : nil, drain)
        }
        guard let start else { return false }
        start.cut?.suspend()
        if start.drain { queue.async { self.drain() } }
        return true
    }

    /// Drops the queued requests and suspends the run under way; true if there was one.
    func suspend() -> Bool {
        lock.lock()
        queued.removeAll()
        cuts += 1
        let run = running?.run
        let underWay = run != nil || starting != nil
        lock.unlock()
        run?.suspend()
        return underWay
    }

    /// Nothing queued ever runs; the run under way is suspended. `waitUntilStopped` waits for it.
    func close() -> Closing {
        lock.lock()
        closed = true
        let closing = Closing(cutRun: running?.mode ?? starting, dropped: queued)
        queued.removeAll()
        let run = running?.run
        lock.unlock()
        run?.suspend()
        return closing
    }

    /// Returns once no run is under way (after `close()`: for good). Bounded by a suspension.
    func waitUntilStopped() {
        busy.wait()
    }

    private func drain() {
        while let (mode, ticket) = next() {
            let made = runner.makeRun(region, mode)
            guard begin(made, mode, ticket: ticket), let run = made else { continue }
            runner.starting(region)
            let status = run.run()
            lock.withLock { running = nil }
            runner.ended(region, mode, status)
        }
    }

    /// The next request and the cut count it starts under; nil (ending the executor) once the lane is empty or closed.
    private func next() -> (Mode, Int)? {
        lock.lock()
        defer { lock.unlock() }
        guard !closed, !queued.isEmpty else {
            draining = false
            busy.leave()
            return nil
        }
        let mode = queued.removeFirst()
        starting = mode
        return (mode, cuts)
    }

    /// Makes `run` the one under way, cut at once when a request came while it was being made.
    /// False when there is none (the runner said why) or the lane closed meanwhile.
    private func begin(_ run: PackDownload?, _ mode: Mode, ticket: Int) -> Bool {
        let cut = lock.withLock { () -> Bool? in
            starting = nil
            guard !closed, let run else { return nil }
            running = (run, mode)
            return cuts != ticket
        }
        guard let cut, let run else { return false }
        if cut { run.suspend() }
        return true
    }
}
