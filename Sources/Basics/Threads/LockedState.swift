import FoundationEssentials

/// State that threads share, reached only through `withLock`: a class keeping its mutable state in one
/// is `Sendable` with no `@unchecked` of its own. Built on `Lock`, a pthread mutex, because
/// Synchronization's `Mutex` sleeps on a bare futex on Linux, which ThreadSanitizer reports as a race.
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
