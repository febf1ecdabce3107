import Basics
import CFuse
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One ring thread of `RingTransport`: its own io_uring with one FUSE entry of one queue. It serves
/// each request through libfuse (the reply reaches `RingEntry.reply` by the writev hook) and submits
/// the commit, which also fetches the next request. The kernel cancels a thread's commands when it
/// exits, so it lives as long as the mount; an eventfd polled on the ring wakes it to stop.
final class RingThread: @unchecked Sendable {  // `ring` and the entry are used by the thread alone; `thread` is set by `start` and read by `join`, on the transport's calls
    private let session: OpaquePointer
    private let ring: UnsafeMutablePointer<io_uring>
    private let entry: RingEntry
    private let wakeFD: Int32
    private let failed: @Sendable (String) -> Void
    /// After a request that finds the session told to exit (checked here: the transport's closure holds it
    /// weakly, and a weak load on every request cost a cold tile more than the check).
    private let served: @Sendable () -> Void
    private var thread: pthread_t?
    private let pinning: Pinning
    /// The ring thread's own: whether it keeps to its queue's CPU now, when it next asks, and the
    /// CPUs it may use otherwise.
    private var isPinned = false
    private var nextLoadCheck: UInt64 = 0
    private var allowedCPUs = packfs_cpus()

    /// Where a ring thread runs. The kernel hands a queue the requests of the processes on its CPU, so
    /// a thread kept there serves them without waking another core, which costs a serial reader more
    /// than its request does (docs/mount.md, "Where ring threads run"). But a busy CPU's callers starve threads
    /// that may run nowhere else: by default a thread keeps to its queue's CPU only while the machine
    /// has a spare core (`MachineLoad`), asked at most every 100 ms, after a request.
    enum Pinning: Equatable {
        case always, never, whileIdle
    }

    /// Each queue's thread `index`'s pinning: `PACKFS_RING_PIN=N` pins the first N always, the others never.
    static func pinning(ofThread index: Int) -> Pinning {
        guard let count = fixedPinnedCount else { return .whileIdle }
        return index < count ? .always : .never
    }

    private static let fixedPinnedCount = ProcessInfo.processInfo.environment["PACKFS_RING_PIN"].flatMap(Int.init).map {
        min(max($0, 0), RingTransport.threadsPerQueue)
    }
    private static let loadCheckInterval: UInt64 = 100_000_000
    private static let wakeCookie: UInt64 = 0
    private static let entryCookie: UInt64 = 1

    /// The ring and its entry; the thread starts with `start()`. nil when io_uring cannot be set up.
    init?(session: OpaquePointer, fd: Int32, queue: UInt16, pinning: Pinning, payloadBytes: Int,
          served: @escaping @Sendable () -> Void, failed: @escaping @Sendable (String) -> Void) {
        self.session = session
        self.pinning = pinning
        self.served = served
        self.failed = failed
        ring = .allocate(capacity: 1)
        wakeFD = eventfd(0, 0)
        guard wakeFD >= 0, packfs_uring_init(4, ring) == 0 else {
            if wakeFD >= 0 { close(wakeFD) }
            ring.deallocate()
            return nil
        }
        entry = RingEntry(ring: ring, fd: fd, queue: queue, payloadBytes: payloadBytes)
    }

    /// Starts the thread, which registers the entry; false if it cannot be started.
    func start() -> Bool {
        thread = startJoinableThread { self.run() }
        return thread != nil
    }

    /// Makes the kernel give up the ring: a failed REGISTER (of a queue that cannot exist) sends every
    /// request back to /dev/fuse, where else a queue without entries would hold them forever.
    static func refuseRing(fd: Int32) {
        let ring = UnsafeMutablePointer<io_uring>.allocate(capacity: 1)
        defer { ring.deallocate() }
        guard packfs_uring_init(2, ring) == 0 else { return }
        defer { io_uring_queue_exit(ring) }
        let buffers = UnsafeMutablePointer<iovec>.allocate(capacity: 2)
        buffers.initialize(repeating: iovec(), count: 2)
        defer { buffers.deallocate() }
        guard let sqe = io_uring_get_sqe(ring) else { return }
        packfs_uring_prep_cmd(sqe, fd, UInt32(PACKFS_URING_CMD_REGISTER), UInt16.max, 0, buffers, 1)
        var cqe: UnsafeMutablePointer<io_uring_cqe>?
        if io_uring_submit_and_wait(ring, 1) >= 0, io_uring_peek_cqe(ring, &cqe) == 0, let cqe { io_uring_cqe_seen(ring, cqe) }
    }

    func wake() { eventfd_write(wakeFD, 1) }

    /// Waits for the thread, then frees its ring (which cancels what the kernel still holds).
    /// The entry's buffers stay: the kernel may hold their addresses until the connection ends.
    func join() {
        if let thread { pthread_join(thread, nil) }
        io_uring_queue_exit(ring)
        close(wakeFD)
    }

    private func run() {
        _ = packfs_name_this_thread("packfs-ring")
        _ = packfs_this_thread_cpus(&allowedCPUs)
        if pinning == .always { isPinned = packfs_pin_this_thread(Int32(entry.queue)) == 0 }
        if pinning == .whileIdle { followLoad() }
        guard let wake = io_uring_get_sqe(ring) else { return }
        packfs_uring_prep_wake(wake, wakeFD, Self.wakeCookie)
        entry.register(cookie: Self.entryCookie)
        while true {
            let submitted = io_uring_submit_and_wait(ring, 1)
            if submitted < 0 && submitted != -EINTR { return failed("io_uring_submit_and_wait: \(String(cString: strerror(-submitted)))") }
            var cqe: UnsafeMutablePointer<io_uring_cqe>?
            while io_uring_peek_cqe(ring, &cqe) == 0, let completion = cqe {
                let (cookie, result) = (completion.pointee.user_data, completion.pointee.res)
                io_uring_cqe_seen(ring, completion)
                if cookie == Self.wakeCookie { return }
                if !handle(result) { return }
            }
        }
    }

    /// Keeps to the queue's CPU while the machine has a spare core, else runs where it may.
    private func followLoad() {
        let now = packfs_monotonic_coarse_ns()
        guard now >= nextLoadCheck else { return }
        nextLoadCheck = now + Self.loadCheckInterval
        let wanted = MachineLoad.hasSpareCore()
        guard wanted != isPinned else { return }
        if wanted {
            isPinned = packfs_pin_this_thread(Int32(entry.queue)) == 0
        } else if packfs_set_this_thread_cpus(&allowedCPUs) == 0 {
            isPinned = false
        }
    }

    /// One completion of the entry; false when the thread should end.
    private func handle(_ result: Int32) -> Bool {
        switch -result {
        case 0:
            entry.serve(session)
            if fuse_session_exited(session) != 0 { served() }
            if pinning == .whileIdle { followLoad() }
            return true
        case EAGAIN, EINTR:
            entry.register(cookie: Self.entryCookie)  // INIT not processed yet: again
            return true
        case ENOTCONN, ECONNABORTED, ECANCELED, ENODEV:
            return false  // the unmount, or the ring's end
        default:
            failed(String(cString: strerror(-result)))
            return false
        }
    }
}
