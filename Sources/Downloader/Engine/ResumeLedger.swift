import Basics
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// How far into the plan every tile is committed: the run's resume position (`ResumePoint`).
///
/// The run submits the plan's tiles in chunks, each opened before any of its tiles is written.
/// Completions come back out of order, so the position is the start of the oldest chunk with a
/// tile not committed yet (a failed request holds it there, for the resume to ask again), or the
/// end of the last chunk. Chunks open on the run's thread, commits arrive on the writer's.
final class ResumeLedger: @unchecked Sendable {  // everything is guarded by `lock`
    private let lock = Lock()
    private var open: [(start: Int, count: Int)] = []
    private var head = 0
    private var remaining: [Int: Int] = [:]
    private var committedThrough = 0
    private var plan: String?
    private var since: Int64 = 0

    /// The run starts fetching `plan`'s tiles at `start` (for a refresh, the one of `since`).
    func begin(plan: String, since: Int64, at start: Int) {
        lock.withLock {
            self.plan = plan
            self.since = since
            committedThrough = start
        }
    }

    /// The run's plan is now named `plan` (a refresh's switch made the pack converge to it).
    func rename(plan: String) {
        lock.withLock { if self.plan != nil { self.plan = plan } }
    }

    /// The point to record: nil before `begin`.
    var point: ResumePoint? {
        lock.withLock { plan.map { ResumePoint(plan: $0, since: since, position: committedThrough) } }
    }

    /// A chunk of `count` tiles starting at plan position `start` is about to be submitted.
    func opened(start: Int, count: Int) {
        guard count > 0 else { return }
        lock.withLock {
            open.append((start, count))
            remaining[start] = count
        }
    }

    /// Tiles of the chunks starting at `starts` (one entry per tile) were committed.
    func committed(_ starts: [Int]) {
        guard !starts.isEmpty else { return }
        lock.withLock {
            for start in starts { remaining[start, default: 0] -= 1 }
            while head < open.count, (remaining[open[head].start] ?? 0) <= 0 {
                let chunk = open[head]
                remaining[chunk.start] = nil
                committedThrough = chunk.start + chunk.count
                head += 1
            }
            if head > 1024 {
                open.removeFirst(head)
                head = 0
            }
        }
    }
}
