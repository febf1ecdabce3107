import CFuse
import Foundation

/// Ending the loop from outside the kernel. `fuse_session_exit` (what `stop()` and libfuse's signal
/// handlers call) only sets a flag. libfuse 3.14's workers test it before reading the next request,
/// and the loop's own thread sleeps on a semaphore that a finishing worker posts, or that a
/// signal interrupts only if it lands on that very thread (in a Swift process it often lands on
/// another). So a watcher notices the flag and sends one request of its own, a statfs of the
/// mountpoint (never cached by the kernel); the worker that answers it then ends the loop.
/// An external unmount needs none of this: the device read fails with ENODEV and the loop ends.
final class ExitRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var session: OpaquePointer?
    private var requested = false

    func request() {
        lock.withLock {
            requested = true
            if let session { fuse_session_exit(session) }
        }
    }

    /// Runs `loop` for `session` with a watcher beside it.
    func serve(_ session: OpaquePointer, mountpoint: String, loop: () -> Int32) -> Int32 {
        lock.withLock {
            self.session = session
            if requested { fuse_session_exit(session) }
        }
        Thread.detachNewThread { self.watch(mountpoint: mountpoint) }
        let result = loop()
        lock.withLock { self.session = nil }
        return result
    }

    private func watch(mountpoint: String) {
        while true {
            let state: Bool? = lock.withLock { session.map { fuse_session_exited($0) != 0 } }
            guard let exited = state else { return }
            if exited {
                var figures = statvfs()
                _ = statvfs(mountpoint, &figures)
                return
            }
            usleep(50_000)
        }
    }
}
