import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Which locks a thread takes, for tests that cap a hot path's locks (a cold tile lookup: two). Every
/// `LockedState` calls `note`, as do the mount's other locks on those paths (reader pool, layout cache).
/// Debug builds only: in a release build `note` is empty and `counting` counts nothing.
public enum LockTally {
    /// Runs `body` and returns the locks the calling thread took meanwhile, one entry per
    /// acquisition (the lock's object identity), in order.
    public static func counting(_ body: () throws -> Void) rethrows -> [ObjectIdentifier] {
        #if DEBUG
            let tally = Tally()
            slot.current = tally
            defer { slot.current = nil }
            try body()
            return tally.taken
        #else
            try body()
            return []
        #endif
    }

    /// `lock` is being taken by the calling thread.
    @inline(__always)
    public static func note(_ lock: AnyObject) {
        #if DEBUG
            slot.current?.taken.append(ObjectIdentifier(lock))
        #endif
    }

    #if DEBUG
        private final class Tally {
            var taken: [ObjectIdentifier] = []
        }

        private static let slot = ThreadSlot<Tally>()
    #endif
}
