import Basics
import CFuse
import FoundationEssentials
import PackStore
import PackFS
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// `KernelCache` over libfuse's invalidation notifications.
/// Notifications go from a serial queue, never the caller's thread: the kernel holds locks for the
/// request being served (the parent directory's, page locks) that inval_entry and inval_inode need,
/// so sending inline would wait on the reply not yet sent. Those made while a request is served are
/// also held until its reply has gone (`holding`): one queued earlier would wait uninterruptibly
/// for that lock, and a daemon killed then could never exit. Before `attach` and after `detach`
/// they are dropped: there is no kernel cache to clear.
public final class KernelNotifier: KernelCache, @unchecked Sendable {  // `session` and `sending` are guarded by `condition`
    private typealias Notification = @Sendable (OpaquePointer) -> Int32
    private let queue = DispatchQueue(label: "packfs.fuse.notify")
    private let condition = Condition()
    private var session: OpaquePointer?
    /// Notifications inside libfuse right now; `waitUntilIdle` waits for them.
    private var sending = 0
    /// Per serving thread, the notifications held until its reply: thread-specific, so serving a
    /// request takes no lock all FUSE threads contend for, and made once a thread (`held(making:)`), not once a request.
    private let perThread = OwnedThreadSlot<Held>()

    private final class Held {
        /// Set while the thread serves a request: what it notifies then waits for the reply.
        var isHolding = false
        var notifications: [Notification] = []
    }

    public init() {}

    public func invalidate(inode: Inode) {
        send { fuse_lowlevel_notify_inval_inode($0, inode.rawValue, 0, 0) }
    }

    public func invalidate(parent: Inode, name: String) {
        send { Self.invalidateEntry($0, parent: parent, name: name) }
    }

    private static func invalidateEntry(_ session: OpaquePointer, parent: Inode, name: String) -> Int32 {
        name.withCString { fuse_lowlevel_notify_inval_entry(session, parent.rawValue, $0, strlen($0)) }
    }

    public func invalidateNow(inodes: [Inode], entries: [(parent: Inode, name: String)]) {
        withSession { session in
            for inode in inodes { _ = fuse_lowlevel_notify_inval_inode(session, inode.rawValue, 0, 0) }
            for (parent, name) in entries { _ = Self.invalidateEntry(session, parent: parent, name: name) }
        }
    }

    /// Waits until every earlier notification is sent (the queue is serial). Bounded: one can wait in
    /// the kernel for a page lock a read holds until its reply.
    public func settle(within seconds: Double) {
        let sent = DispatchSemaphore(value: 0)
        queue.async { sent.signal() }
        _ = sent.wait(timeout: .now() + seconds)
    }

    func attach(_ session: OpaquePointer) {
        condition.withLock { self.session = session }
    }

    /// Stops new notifications and gives those under way a moment while the device is open. One can stay blocked until
    /// the unmount aborts the connection: destroy the session only after `waitUntilIdle()` following the unmount.
    func detach() {
        condition.withLock { session = nil }
        waitUntilIdle(deadline: Date(timeIntervalSinceNow: 1))
    }

    func waitUntilIdle(deadline: Date = .distantFuture) {
        condition.withLock {
            while sending > 0 && condition.wait(until: deadline) {}
        }
    }

    /// Runs `serve` (a request's work and reply) holding back the notifications it makes, then queues them.
    func holding(_ serve: () -> Void) {
        guard let held = held(making: true) else { return serve() }
        held.isHolding = true
        serve()
        held.isHolding = false
        guard !held.notifications.isEmpty else { return }
        let made = held.notifications
        held.notifications = []
        // Over io_uring the reply waits in its ring until the thread loops back: submit it first.
        RingEntry.thread.current?.submitQueued()
        for notify in made { enqueue(notify) }
    }

    /// The calling thread's `Held`, made on its first request when `making` (nil if the process has no thread
    /// key left: then every notification goes out at once).
    private func held(making: Bool) -> Held? {
        if let held = perThread.current { return held }
        guard making else { return nil }
        let made = Held()
        return perThread.set(made) ? made : nil
    }

    private func send(_ notify: @escaping Notification) {
        guard let held = held(making: false), held.isHolding else { return enqueue(notify) }
        held.notifications.append(notify)
    }

    private func enqueue(_ notify: @escaping Notification) {
        queue.async { self.withSession { _ = notify($0) } }
    }

    /// Runs `body` with the session, counted in `sending`; not at all while detached. Results are
    /// ignored: -ENOENT, the likely failure, means the kernel had nothing cached.
    private func withSession(_ body: (OpaquePointer) -> Void) {
        let session: OpaquePointer? = condition.withLock {
            if self.session != nil { sending += 1 }
            return self.session
        }
        guard let session else { return }
        body(session)
        condition.withLock {
            sending -= 1
            condition.broadcast()
        }
    }
}
