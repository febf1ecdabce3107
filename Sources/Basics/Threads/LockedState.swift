import FoundationEssentials

/// State that threads share, reached only through `withLock`. A class holding its mutable state
/// in one of these is `Sendable` as the compiler checks it, with no `@unchecked` of its own.
///
/// Not Synchronization's `Mutex`: on Linux it sleeps on a bare futex that ThreadSanitizer does
/// not see, so every access it guards is reported as a race. `Lock` is a pthread mutex, which TSan
/// models.
public final class LockedState<Value>: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = Lock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        LockTally.note(self)
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
