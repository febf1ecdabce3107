import Basics
import CFuse
import FoundationEssentials
import PackStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The multi-threaded request loop: workers that each read a request from the device and answer
/// it, one more started whenever none is left waiting (up to `maxWorkers`), as libfuse's loop does.
///
/// Why not `fuse_session_loop_mt`: it ends by `pthread_cancel`-ing the workers asleep in read(),
/// and a thread cancelled inside an intercepted call ends with ThreadSanitizer's ignores still
/// set, which aborts the process; so no mount could be tested under TSan. Here the loop ends when
/// one worker returns (the session exited: `ExitRequest` made a request to notice it with, or the
/// device reported ENODEV after an unmount); the others are interrupted with a signal whose
/// handler does nothing (read() returns EINTR, the worker sees the exit flag and returns), sent
/// again until each has returned, since one may be between its check and its read().
final class WorkerLoop: @unchecked Sendable {  // `workers`, `ended` and `failure` are guarded by `condition`
    private let session: OpaquePointer
    private let maxWorkers: Int
    private let condition = Condition()
    private var workers: [pthread_t] = []
    /// Workers waiting for a request (in read()) right now. Atomic: every request changes it
    /// twice, and a lock there was one more that all FUSE threads contend for; the lock is taken
    /// only when it reaches 0, to start a worker.
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

    /// Ends the loop as if a worker had seen the session's exit flag: with the io_uring transport
    /// the request that tells the loop to end (`ExitRequest`'s statfs) is served by a ring
    /// thread, and no request may come to /dev/fuse after it. `run` then interrupts the workers
    /// until each has returned (one may be between its check of the flag and its read()).
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

    // Tried: a non-blocking device, one worker spinning on it briefly after each request and
    // the others in poll(), to save the cross-CPU wake-ups a VM charges dearly for: `ls -l` was
    // slower, as poll wakes every idle worker (docs/benchmarks.md, "Designs measured and set aside").
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

/// Starts a thread running `body`, to be joined; nil when the system makes none. Not a
/// `NativeThread`, which is detached: a thread that is signalled (`WorkerLoop`) or whose end
/// must be known before its resources go (`RingThread`) keeps a valid id until it is joined.
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
