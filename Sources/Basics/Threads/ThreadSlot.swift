#if canImport(Glibc)
    import Glibc
#endif

/// One object per thread (pthread-specific data), held unretained: whoever sets it keeps it alive
/// until it is cleared. For state a thread's callees find without it being passed down.
public struct ThreadSlot<Object: AnyObject>: Sendable {
    private let key: pthread_key_t

    public init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The calling thread's object, nil when none is set.
    public var current: Object? {
        get { pthread_getspecific(key).map { Unmanaged<Object>.fromOpaque($0).takeUnretainedValue() } }
        nonmutating set { pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }
}
