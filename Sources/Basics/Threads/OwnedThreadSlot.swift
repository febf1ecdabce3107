#if canImport(Glibc)
    import Glibc
#endif

/// One object per thread that the thread owns (pthread-specific data, held retained): state that lives as
/// long as its thread, made at the thread's first use (a reader connection, a decompressor). When the thread
/// exits its object is released, after being told if it is `ThreadExiting`. `ThreadSlot` is the unretained
/// kind, for an object its setter keeps alive.
public final class OwnedThreadSlot<Object: AnyObject>: Sendable {
    /// Nil when the process had no key left: then no thread holds an object, and callers do without.
    @usableFromInline let key: pthread_key_t?

    public init() {
        var key = pthread_key_t()
        // The destructor cannot capture `Object`: it takes the object back as AnyObject, the same reference.
        let made = pthread_key_create(&key) { raw in
            guard let raw else { return }
            let object = Unmanaged<AnyObject>.fromOpaque(raw).takeRetainedValue()
            (object as? ThreadExiting)?.threadDidExit()
        }
        self.key = made == 0 ? key : nil
    }

    /// Objects threads still hold then are not released (no destructor runs for a deleted key).
    deinit {
        if let key { pthread_key_delete(key) }
    }

    /// Whether a thread can hold an object here.
    public var isUsable: Bool { key != nil }

    /// The calling thread's object, nil when none is set. Inlinable: read on every cold tile.
    @inlinable
    public var current: Object? {
        guard let key, let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<Object>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Makes `object` the calling thread's (nil: none), releasing the one before without telling it (the object
    /// is dropped, its thread goes on). False, and nothing changed, when it cannot be kept.
    @discardableResult
    public func set(_ object: Object?) -> Bool {
        guard let key else { return false }
        let before = pthread_getspecific(key)
        let new = object.map { Unmanaged.passRetained($0).toOpaque() }
        guard pthread_setspecific(key, new) == 0 else {
            if let new { Unmanaged<Object>.fromOpaque(new).release() }
            return false
        }
        if let before { Unmanaged<Object>.fromOpaque(before).release() }
        return true
    }
}

/// An object that an `OwnedThreadSlot` tells when its thread exits, before releasing it.
public protocol ThreadExiting: AnyObject {
    func threadDidExit()
}
