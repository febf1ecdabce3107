import Basics
import CFuse
import FoundationEssentials
import PackStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The multi-threaded request loop: each worker reads a request from the device and answers it, one
/// more started whenever none is left waiting (up to `maxWorkers`), as libfuse's loop does.
/// Not `fuse_session_loop_mt`: it ends by `pthread_cancel`, which aborts under ThreadSanitizer.
/// Here the loop ends when one worker sees the session exited (`ExitRequest`, or ENODEV after an
/// unmount); the others are interrupted by a no-op signal handler (read() returns EINTR), sent
/// again until each has returned, since one may be between its check and its read().
final class WorkerLoop: @unchecked Sendable {  // `workers`, `ended` and `failure` are guarded by `condition`
    private let session: OpaquePointer
    private let maxWorkers: Int
    private let condition = Condition()
    private var workers: [pthread_t] = []
    /// Workers in read() now. Atomic, so a request takes no lock that all FUSE threads contend for;
    /// the lock is taken only at 0, to start a worker.
    private let waiting = Atomic<Int>(0)
    private var ended = 0
    /// Set by `wake`: the session exited without a worker seeing it; the loop interrupts them all.
    private var ending = false
    /// The first error a read reported other than the end of the session (a negative errno).
    private var failure: Int32 = 0

    init(session: OpaquePointer, maxWorkers: Int) {
        self.session = session
        self.maxWorkers = max(1, maxWorkers)
    }

    /// Serves until the session ends; 0, or the negative errno of a failed read.
    func run() -> Int32 {
        guard packfs_install_wake_handler() == 0 else { return -errno }
        guard condition.withLock({ startWorker() }) else { return -EAGAIN }
        condition.withLock { while ended == 0 && !ending { condition.wait() } }
        interruptUntilAllEnded()
        for worker in condition.withLock({ workers }) { pthread_join(worker, nil) }
        return condition.withLock { failure }
    }

    /// Ends the loop as if a worker had seen the exit flag: over io_uring, `ExitRequest`'s request
    /// is served by a ring thread, and none may come to /dev/fuse after it.
    func wake() {
        condition.withLock {
            ending = true
            condition.broadcast()
        }
    }

    private func interruptUntilAllEnded() {
        condition.withLock {
            while ended < workers.count {
                for worker in workers { pthread_kill(worker, packfs_wake_signal()) }
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
            }
        }
    }

    /// Starts one more worker; called with `condition` held.
    private func startWorker() -> Bool {
        guard let thread = startJoinableThread({ self.work() }) else { return false }
        workers.append(thread)
        waiting.add(1, ordering: .relaxed)
        return true
    }

    // Blocking reads: a non-blocking device with one worker spinning and the rest in poll() is slower, as poll
    // wakes every idle worker (docs/benchmarks.md, "Designs measured and set aside").
    private func work() {
        var buffer = fuse_buf()
        defer { free(buffer.mem) }
        while fuse_session_exited(session) == 0 {
            let received = fuse_session_receive_buf(session, &buffer)
            if received == -EINTR { continue }
            guard received > 0 else {
                if received < 0 { fail(received) }
                break
            }
            requestArrived()
            fuse_session_process_buf(session, &buffer)
            waiting.add(1, ordering: .relaxed)
        }
        waiting.subtract(1, ordering: .relaxed)
        condition.withLock {
            ended += 1
            condition.broadcast()
        }
    }

    /// A worker took a request: if none is left to take the next, start one.
    private func requestArrived() {
        guard waiting.subtract(1, ordering: .relaxed).newValue == 0 else { return }
        condition.withLock {
            if ended == 0, workers.count < maxWorkers { _ = startWorker() }
        }
    }

    private func fail(_ code: Int32) {
        fuse_session_exit(session)
        condition.withLock { if failure == 0 { failure = code } }
    }
}

/// Starts a thread running `body`, to be joined; nil when the system makes none. Not a detached
/// `NativeThread`: a thread that is signalled or whose end must be known keeps a valid id until joined.
func startJoinableThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let created = pthread_create(&thread, nil, { box in
        guard let box else { return nil }
        Unmanaged<ThreadBody>.fromOpaque(box).takeRetainedValue().run()
        return nil
    }, box)
    guard created == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(box).release()
        return nil
    }
    return thread
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
