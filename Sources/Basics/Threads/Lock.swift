import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A pthread mutex: what NSLock was, without full Foundation (which brings ICU into the binary).
/// Not Synchronization's `Mutex`: on Linux it sleeps on a bare futex that ThreadSanitizer does not
/// see (`LockedState`).
public final class Lock: @unchecked Sendable {  // `mutex` is used only through pthread calls
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock with a condition variable, as NSCondition: `wait` releases the lock while it sleeps.
public final class Condition: @unchecked Sendable {  // `lock` and `cond` are used only through pthread calls
    private let lockHeld = Lock()
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    public func lock() { lockHeld.lock() }
    public func unlock() { lockHeld.unlock() }
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result { try lockHeld.withLock(body) }
    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// Sleeps until signalled (or woken spuriously: callers loop on their own condition).
    public func wait() { pthread_cond_wait(cond, lockHeld.mutex) }

    /// Sleeps until signalled or `deadline` passes; false when the deadline passed.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        let seconds = max(0, deadline.timeIntervalSince1970)
        let whole = seconds.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        return pthread_cond_timedwait(cond, lockHeld.mutex, &time) == 0
    }
}
