import CGlibc
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A detached pthread running a closure: what Foundation's `Thread` was to PackFS (start, name,
/// "is this the current thread"), without full Foundation.
public final class NativeThread: Sendable {
    /// The thread's id, set by the thread itself before `body` runs: `isCurrent` asks only
    /// whether the caller is this thread, and only this thread can be it before it is set.
    private let id = LockedState<pthread_t?>(nil)

    private init() {}

    /// Starts `body` on a new detached thread named `name` (the kernel keeps 15 bytes of it);
    /// throws the errno when the system makes no thread (EAGAIN: a limit on threads or memory).
    @discardableResult
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> NativeThread {
        let thread = NativeThread()
        let start = Start {
            let me = pthread_self()
            thread.id.withLock { $0 = me }
            _ = packfs_name_thread(String(decoding: name.utf8.prefix(15), as: UTF8.self))
            body()
        }
        var handle = pthread_t()
        let box = Unmanaged.passRetained(start).toOpaque()
        let created = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Start>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, box)
        guard created == 0 else {
            Unmanaged<Start>.fromOpaque(box).release()
            throw SystemError(code: created)
        }
        pthread_detach(handle)
        return thread
    }

    /// Whether the caller runs on this thread.
    public var isCurrent: Bool {
        let me = pthread_self()
        return id.withLock { $0.map { pthread_equal($0, me) != 0 } ?? false }
    }

    /// What the new thread runs, boxed to cross `pthread_create`.
    private final class Start: Sendable {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
