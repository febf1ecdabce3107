import Basics
import CFuse
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// Ending the loop from outside the kernel. `fuse_session_exit` only sets a flag, which a worker asleep in read() never
/// sees. So a watcher, woken through a pipe by `request()` or a signal (recorded by the shim's handler, chained after
/// libfuse's), sends a request of its own: a statfs of the mountpoint, never cached by the kernel; the worker that
/// answers it ends the loop. An idle mount wakes nobody. After an external unmount the device read fails (ENODEV).
final class ExitRequest: @unchecked Sendable {  // `session` (libfuse's), `requested` and `wake` are guarded by `lock`
    private let lock = Lock()
    private var session: OpaquePointer?
    private var requested = false
    /// The wake-up pipe's write end while `serve` runs (non-blocking: a signal handler never waits).
    private var wake: Int32?

    func request() {
        lock.withLock {
            requested = true
            if let session { fuse_session_exit(session) }
            if let wake { Self.poke(wake) }
        }
    }

    /// Runs `loop` for `session` with a watcher beside it; `chainSignals`: also wake the watcher
    /// on SIGINT, SIGTERM and SIGHUP (when libfuse's handlers are installed).
    func serve(_ session: OpaquePointer, mountpoint: String, chainSignals: Bool, loop: () -> Int32) -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return -errno }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        lock.withLock {
            self.session = session
            self.wake = writeEnd
            if requested { fuse_session_exit(session) }
        }
        do {
            try NativeThread.start(name: Self.threadName) { self.watch(wake: readEnd, mountpoint: mountpoint) }
        } catch {
            lock.withLock {
                self.session = nil
                self.wake = nil
            }
            close(readEnd)
            close(writeEnd)
            return -error.code
        }
        if chainSignals { _ = packfs_chain_exit_signals(writeEnd) }
        let result = loop()
        if chainSignals { packfs_unchain_exit_signals() }
        lock.withLock {
            self.session = nil
            self.wake = nil
        }
        // The handler records the signal before it wakes anyone, so it is known by now.
        let signal = chainSignals ? packfs_exit_signal_received() : 0
        // The watcher reads end-of-file and closes the read end.
        close(writeEnd)
        return result == 0 ? signal : result
    }

    /// The watcher's thread name (tests look for it in /proc).
    static let threadName = "packfs-exit"

    /// Kicks the loop once told to exit, then reads until `serve` closes the write end: a write to a
    /// pipe without a reader would raise SIGPIPE.
    private func watch(wake: Int32, mountpoint: String) {
        defer { close(wake) }
        var kicked = false
        var byte: UInt8 = 0
        while true {
            let state: Bool? = lock.withLock { session.map { fuse_session_exited($0) != 0 } }
            guard let exited = state else { return }
            if exited && !kicked {
                var figures = statvfs()
                _ = statvfs(mountpoint, &figures)
                kicked = true
            }
            let count = read(wake, &byte, 1)
            if count == 0 || (count < 0 && errno != EINTR) { return }
        }
    }

    private static func poke(_ fd: Int32) {
        var byte: UInt8 = 0
        _ = write(fd, &byte, 1)
    }
}
