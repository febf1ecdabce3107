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
///
/// Notifications are sent from a serial queue, never from the caller's thread: the model may
/// invalidate from inside a callback, and the kernel holds locks for that callback's request
/// (the parent directory's for lookup/create/unlink/rename, page locks for read) that
/// inval_entry and inval_inode need; sending inline would wait on the very reply the callback has
/// not sent yet. Those made while a request is served are held until its reply has gone
/// (`holding`): a notification queued earlier waits in the kernel, uninterruptibly, for the
/// lock that request holds, and a daemon killed then can never exit (the waiting thread keeps
/// the device open, so the kernel never aborts the connection that would answer the request).
/// Between mount and unmount only: before `attach` and after `detach` they are dropped, since
/// there is no kernel cache to clear.
public final class KernelNotifier: KernelCache, @unchecked Sendable {  // `session` and `sending` are guarded by `condition`
    private typealias Notification = @Sendable (OpaquePointer) -> Int32
    private let queue = DispatchQueue(label: "packfs.fuse.notify")
    private let condition = Condition()
    private var session: OpaquePointer?
    /// Notifications inside libfuse right now; `waitUntilIdle` waits for them.
    private var sending = 0
    /// Per thread serving a request: a `Held` with the notifications it made, sent after its
    /// reply. Thread-specific data, so that serving a request takes no shared lock (a dictionary
    /// by thread under `condition` cost every request two turns of one lock that all FUSE
    /// threads contend for).
    private let heldKey: pthread_key_t

    private final class Held {
        var notifications: [Notification] = []
    }

    public init() {
        var key = pthread_key_t()
        // Fails only when the process has used up its keys (PTHREAD_KEYS_MAX, 1024); then
        // every notification goes out at once, which is what happens outside a request anyway.
        if pthread_key_create(&key, nil) != 0 { key = .max }
        heldKey = key
    }

    deinit {
        if heldKey != .max { pthread_key_delete(heldKey) }
    }

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

    /// Notifications go out in order from one queue: once a mark queued now has run, every
    /// earlier one has been sent (or dropped, after `detach`). Bounded: one can wait in the kernel
    /// for a page lock a read holds until its reply.
    public func settle(within seconds: Double) {
        let sent = DispatchSemaphore(value: 0)
        queue.async { sent.signal() }
        _ = sent.wait(timeout: .now() + seconds)
    }

    func attach(_ session: OpaquePointer) {
        condition.withLock { self.session = session }
    }

    /// Stops new notifications and gives those under way a moment to finish while the session's
    /// device is still open. One can stay blocked (a page lock held by a read nobody will answer
    /// once the loop has ended); it ends when unmounting aborts the connection, so the session
    /// is destroyed only after `waitUntilIdle()` following the unmount.
    func detach() {
        condition.withLock { session = nil }
        waitUntilIdle(deadline: Date(timeIntervalSinceNow: 1))
    }

    func waitUntilIdle(deadline: Date = .distantFuture) {
        condition.withLock {
            while sending > 0 && condition.wait(until: deadline) {}
        }
    }

    /// Runs `serve` (a request's work and its reply) holding back the notifications it makes,
    /// then queues them.
    func holding(_ serve: () -> Void) {
        guard heldKey != .max else { return serve() }
        let held = Unmanaged.passRetained(Held())
        pthread_setspecific(heldKey, held.toOpaque())
        serve()
        pthread_setspecific(heldKey, nil)
        let made = held.takeRetainedValue().notifications
        // Over io_uring the reply is only queued in its ring until the thread loops back to the
        // kernel: it goes in now, so that these follow it, as on /dev/fuse.
        if !made.isEmpty { RingEntry.current?.submitQueued() }
        for notify in made { enqueue(notify) }
    }

    private func send(_ notify: @escaping Notification) {
        guard heldKey != .max, let raw = pthread_getspecific(heldKey) else { return enqueue(notify) }
        Unmanaged<Held>.fromOpaque(raw).takeUnretainedValue().notifications.append(notify)
    }

    private func enqueue(_ notify: @escaping Notification) {
        queue.async { self.withSession { _ = notify($0) } }
    }

    /// Runs `body` with the session, counted in `sending` (`waitUntilIdle`); not at all while
    /// detached. What a notification returns is not looked at: -ENOENT, the likely failure,
    /// means the kernel had nothing cached for it, which is what we wanted.
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
