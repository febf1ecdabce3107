import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A store thread (background count, remover) that blocks SIGINT, SIGTERM and SIGHUP: a signal given to
/// a thread blocked in libdispatch is lost when it ends, and the daemon would not end on SIGTERM.
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
