import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A thread of the store's own (the mount's background count and remover) that never takes the
/// signals that end a mount (SIGINT, SIGTERM, SIGHUP): those belong to the threads that serve the
/// mount. A signal handed to a thread blocked where ThreadSanitizer cannot deliver it (inside
/// libdispatch) is lost when that thread ends, and the daemon would not end on SIGTERM.
public enum QuietThread {
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        try NativeThread.start(name: name) {
            var signals = sigset_t()
            sigemptyset(&signals)
            for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            body()
        }
    }
}
