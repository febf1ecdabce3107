#if canImport(Glibc)
    import Glibc
#endif

/// One object per thread (pthread-specific data), held unretained: whoever sets it keeps it alive
/// until it is cleared. For state a thread's callees find without it being passed down.
/// Inlinable: every FUSE request sets and reads slots several times, and unspecialized, each access
/// looked up `Object`'s generic metadata at run time.
public struct ThreadSlot<Object: AnyObject>: Sendable {
    @usableFromInline let key: pthread_key_t

    public init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The calling thread's object, nil when none is set.
    @inlinable
    public var current: Object? {
        get {
            guard let raw = pthread_getspecific(key) else { return nil }
            return Unmanaged<Object>.fromOpaque(raw).takeUnretainedValue()
        }
        nonmutating set {
            guard let newValue else { pthread_setspecific(key, nil); return }
            pthread_setspecific(key, Unmanaged.passUnretained(newValue).toOpaque())
        }
    }
}
