import Basics
import FoundationEssentials
import Dispatch

/// Decodes 2xx bodies on worker threads, so libcurl keeps receiving while bodies are inflated.
///
/// Exactly once. A job waits in `pending`; whoever takes it out owns it. A worker completes it, or hands a
/// corrupt body's retry back through `returned`; a cancel on the loop completes it `.cancelled` and the
/// worker's result is dropped. `pending` to `returned` and `withdraw` share one lock, so no job is missed.
///
/// Bounded. The loop starts no transfer while `limit` bodies or `byteLimit` bytes are pending; the worker
/// that makes room wakes it. `TransferLoop.init` says why the bound is one body per slot.
final class DecodePool<Tag: Sendable>: @unchecked Sendable {  // every `var` is guarded by `condition`
    private struct Work {
        var id: UInt64
        var result: AttemptResult
        var url: String
        var now: Int64
    }

    typealias Returned = (job: Job<Tag>, step: AttemptStep)

    /// A 2xx attempt whose body is to be decoded.
    struct Body {
        var job: Job<Tag>
        var result: AttemptResult
        var now: Int64
    }

    private let condition = Condition()
    private var queue: [Work] = []
    private var pending: [UInt64: (job: Job<Tag>, bytes: Int)] = [:]
    private var pendingBytes = 0
    private var returned: [Returned] = []
    private var nextID: UInt64 = 0
    private var loopWaits = false
    private var closed = false
    private let limit: Int
    private let byteLimit: Int
    private let wakeLoop: @Sendable () -> Void
    private let finish: @Sendable (Job<Tag>, HTTPOutcome) -> Void
    private let exited = DispatchGroup()
    private var threads: [NativeThread] = []  // guarded by `condition`

    /// `finish` completes a job on the worker thread; `wakeLoop` interrupts the loop's poll.
    init(workers: Int, limit: Int, byteLimit: Int, bodyLimit: Int, wakeLoop: @escaping @Sendable () -> Void,
         finish: @escaping @Sendable (Job<Tag>, HTTPOutcome) -> Void) throws {
        self.limit = limit
        self.byteLimit = byteLimit
        self.wakeLoop = wakeLoop
        self.finish = finish
        var failure: Error?
        for index in 0..<max(1, workers) {
            let exited = self.exited
            exited.enter()
            do {
                // Weak: a strong `self` would keep the pool, its curl handle and the download alive forever.
                let thread = try NativeThread.start(name: "PackFS decode \(index)") { [weak self] in
                    // A BodyDecoder reuses its inflaters: one per thread, made on it.
                    self?.run(AttemptClassifier(decoder: BodyDecoder(), bodyLimit: bodyLimit))
                    exited.leave()
                }
                condition.withLock { threads.append(thread) }
            } catch {
                exited.leave()
                failure = error
            }
        }
        // Fewer workers decode more slowly; none would leave every body waiting.
        if let failure, condition.withLock({ threads.isEmpty }) {
            throw HTTPError.setup("no thread to decode bodies: \(failure)")
        }
    }

    /// Whether the caller is one of the workers (a completion running on it).
    var runsOnCurrentThread: Bool { condition.withLock { threads.contains { $0.isCurrent } } }

    // MARK: Loop side

    /// Hands over bodies at once: one lock, and one wake-up per worker at most.
    func submit(_ bodies: [Body]) {
        condition.lock()
        for body in bodies {
            pending[nextID] = (body.job, body.result.body.count)
            pendingBytes += body.result.body.count
            queue.append(Work(id: nextID, result: body.result, url: body.job.url, now: body.now))
            nextID += 1
        }
        if bodies.count == 1 { condition.signal() } else { condition.broadcast() }
        condition.unlock()
    }

    /// False when the pool is full; the loop is then woken once there is room again.
    func hasRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        loopWaits = isFull
        return !loopWaits
    }

    /// Retries handed back by the workers, for the loop to schedule.
    func takeReturned() -> [Returned] {
        condition.lock()
        defer { condition.unlock() }
        guard !returned.isEmpty else { return [] }
        defer { returned = [] }
        return returned
    }

    /// Takes the pending jobs matching `predicate` (the caller completes them) and, atomically
    /// with them, every returned retry (the caller schedules these, then cancels as usual).
    func withdraw(where predicate: (Job<Tag>) -> Bool) -> (cancelled: [Job<Tag>], returned: [Returned]) {
        condition.lock()
        defer { condition.unlock() }
        let matching = pending.filter { predicate($0.value.job) }
        for (id, entry) in matching {
            pending[id] = nil
            pendingBytes -= entry.bytes
        }
        defer { returned = [] }
        return (matching.sorted { $0.key < $1.key }.map(\.value.job), returned)
    }

    /// Stops the workers after their current body and waits for them and their completions. Call after
    /// withdrawing everything.
    func close() {
        condition.lock()
        // A programmer's mistake only: the transfer loop withdraws every job before it closes the
        // pool; nothing a server sends decides when `close` runs.
        precondition(pending.isEmpty && returned.isEmpty, "DecodePool closed with jobs it still owns")
        closed = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
        exited.wait()
    }

    /// Call with the lock held.
    private var isFull: Bool { pending.count >= limit || pendingBytes >= byteLimit }

    // MARK: Worker side

    private func run(_ classifier: AttemptClassifier) {
        while let work = next() {
            settle(work.id, classifier.decoded(work.result, url: work.url, now: work.now))
        }
    }

    /// The next body whose job is still pending (a cancelled one is not worth inflating); nil once closed.
    private func next() -> Work? {
        condition.lock()
        defer { condition.unlock() }
        while !closed {
            if queue.isEmpty {
                condition.wait()
                continue
            }
            let work = queue.removeFirst()
            if pending[work.id] != nil { return work }
        }
        return nil
    }

    private func settle(_ id: UInt64, _ step: AttemptStep) {
        condition.lock()
        guard let (job, bytes) = pending.removeValue(forKey: id) else {
            condition.unlock()
            return
        }
        pendingBytes -= bytes
        let makesRoom = loopWaits && !isFull
        if makesRoom { loopWaits = false }
        var outcome: HTTPOutcome?
        if case .finish(let finished) = step { outcome = finished } else { returned.append((job, step)) }
        condition.unlock()
        if let outcome {
            finish(job, outcome)
            if makesRoom { wakeLoop() }
        } else {
            wakeLoop()
        }
    }
}
