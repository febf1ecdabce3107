#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pthread mutex (ThreadSanitizer models it; Synchronization's `Mutex` needs macOS 15 and sleeps
/// on a futex TSan does not see). Error-checking: a thread that locks it again while holding it is
/// stopped by a precondition instead of deadlocking (a reentrant database access is a bug).
final class Lock: @unchecked Sendable {  // the mutex guards itself; it lives at a fixed address
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        let code = pthread_mutex_lock(mutex)
        // A programmer's mistake only (a database call from inside another on the same
        // connection); no outside data decides it.
        precondition(code != EDEADLK, "SQLiteDB: database methods are not reentrant")
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value that threads share, reached only through `withLock`.
final class Locked<Value>: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }
}
