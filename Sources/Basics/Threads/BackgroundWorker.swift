import FoundationEssentials

/// One thread of the store's own (`QuietThread`) that does a round of work each time it is
/// woken, until stopped: a mount's remover (woken by each removal) and its hasher (woken by each
/// completed pack). Wakes during a round ask for one more round after it.
public final class BackgroundWorker: @unchecked Sendable {  // `wanted`, `stopped`, `running` and `busy` are guarded by `condition`
    private let condition = Condition()
    private var wanted = false
    private var stopped = false
    private var running = false
    /// A round is under way.
    private var busy = false
    private let name: String

    /// `name` is the thread's.
    public init(name: String) { self.name = name }

    /// No round under way or asked for.
    public var idle: Bool { condition.withLock { !busy && !wanted } }

    /// Starts the thread on the first call; later calls wake it. `work` is told whether `stop` was
    /// called, to end early. False when no thread could be started (the next wake tries again).
    @discardableResult
    public func wake(_ work: @escaping @Sendable (_ stopped: @escaping @Sendable () -> Bool) -> Void) -> Bool {
        let start = condition.withLock { () -> Bool in
            wanted = true
            condition.broadcast()
            guard !running, !stopped else { return false }
            running = true
            return true
        }
        guard start else { return true }
        do {
            try QuietThread.start(name: name) { [self] in
                while nextRound() {
                    work { self.condition.withLock { self.stopped } }
                    condition.withLock { busy = false }
                }
                finish()
            }
        } catch {
            finish()
            return false
        }
        return true
    }

    private func finish() {
        condition.withLock {
            running = false
            condition.broadcast()
        }
    }

    /// true: run a round; false: stop.
    private func nextRound() -> Bool {
        condition.withLock {
            while !wanted && !stopped { condition.wait() }
            if stopped { return false }
            wanted = false
            busy = true
            return true
        }
    }

    /// Stops the thread after its current step, and waits for it.
    public func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while running { condition.wait() }
        }
    }
}
