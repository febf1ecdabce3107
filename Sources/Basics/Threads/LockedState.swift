import FoundationEssentials

/// State that threads share, reached only through `withLock`: a class keeping its mutable state in one
/// is `Sendable` with no `@unchecked` of its own. Built on `Lock`, a pthread mutex, because
/// Synchronization's `Mutex` sleeps on a bare futex on Linux, which ThreadSanitizer reports as a race.
/// Inlinable: unspecialized across modules, every `withLock` looked up its types' metadata at run time, on
/// paths (a cold tile's lookup and read) that take it four times.
public final class LockedState<Value>: @unchecked Sendable {  // `value` is guarded by `lock`
    @usableFromInline let lock = Lock()
    @usableFromInline var value: Value

    public init(_ value: Value) { self.value = value }

    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        LockTally.note(self)
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
