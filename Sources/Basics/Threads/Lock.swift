import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A pthread mutex, without full Foundation (which brings ICU into the binary). Not Synchronization's
/// `Mutex`: see `LockedState`.
public class Lock: @unchecked Sendable {  // `mutex` is used only through pthread calls
    fileprivate let mutex = pthreadObject(pthread_mutex_t()) { pthread_mutex_init($0, nil) }

    public init() {}

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public final func lock() { pthread_mutex_lock(mutex) }
    public final func unlock() { pthread_mutex_unlock(mutex) }

    public final func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// `body` under the lock if no thread holds it now, else nil at once.
    public final func withLockIfAvailable<Result>(_ body: () throws -> Result) rethrows -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { unlock() }
        return try body()
    }
}

/// A lock with a condition variable, as NSCondition: `wait` releases the lock while it sleeps.
public final class Condition: Lock, @unchecked Sendable {  // `cond` is used only through pthread calls
    private let cond = pthreadObject(pthread_cond_t()) { pthread_cond_init($0, nil) }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// Sleeps until signalled (or woken spuriously: callers loop on their own condition).
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Sleeps until signalled or `deadline` passes; false when the deadline passed.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        let seconds = max(0, deadline.timeIntervalSince1970)
        let whole = seconds.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        return pthread_cond_timedwait(cond, mutex, &time) == 0
    }
}

/// A pthread object at a fixed heap address (pthread keeps pointers into it), set up by `initialize`.
private func pthreadObject<Object>(_ blank: Object, _ initialize: (UnsafeMutablePointer<Object>) -> Int32)
    -> UnsafeMutablePointer<Object>
{
    let object = UnsafeMutablePointer<Object>.allocate(capacity: 1)
    object.initialize(to: blank)
    _ = initialize(object)
    return object
}
