import Basics
import CFuse
import FoundationEssentials
import PackFS

#if canImport(Glibc)
    import Glibc
#endif

/// One mount of a `Filesystem`: `run()` mounts, serves (`WorkerLoop`), and unmounts when the loop ends.
public final class FUSEMount: Sendable {
    public struct Options: Sendable {
        /// `-o` options for libfuse and the kernel. `allow_other` brings `default_permissions`, so
        /// the kernel checks the permission bits for the other users it lets in.
        public var mountOptions: [String]
        /// Most worker threads serving requests at once.
        public var maxThreads: Int
        public var caching: KernelCaching
        /// libfuse's handlers: SIGINT, SIGTERM and SIGHUP end the loop, SIGPIPE is ignored. They are
        /// process-wide and serve one session at a time: leave off for a second concurrent mount.
        public var handlesSignals: Bool
        /// FUSE over io_uring (`RingTransport`): `on` fails the mount where the kernel does not offer it.
        public var ioURing: IOURing
        /// Told which transport serves once INIT is answered, and again if the kernel refuses the ring.
        public var transport: @Sendable (String) -> Void
        // No `fuse_daemonize`: a forked Swift process keeps one thread and a broken Dispatch (`Background`).

        public init(mountOptions: [String] = [], maxThreads: Int = 16, caching: KernelCaching = KernelCaching(),
                    handlesSignals: Bool = true, ioURing: IOURing = .auto, transport: @escaping @Sendable (String) -> Void = { _ in }) {
            self.mountOptions = mountOptions
            self.maxThreads = maxThreads
            self.caching = caching
            self.handlesSignals = handlesSignals
            self.ioURing = ioURing
            self.transport = transport
        }
    }

    public enum IOURing: String, Sendable, CaseIterable {
        case auto, on, off
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// libfuse refused the options; `detail` is what it said (an unknown option).
        case invalidOptions([String], detail: String)
        /// The kernel refused the mount; `detail` is what libfuse said.
        case mountFailed(String, detail: String)
        case signalHandlersFailed
        case loopFailed(errno: Int32)
        /// `io_uring=on` where the kernel does not offer FUSE over io_uring.
        case ringUnavailable

        public var description: String {
            switch self {
            case .invalidOptions(let options, let detail):
                return "libfuse rejected the options \(options.joined(separator: ","))" + Self.said(detail)
            case .mountFailed(let path, let detail): return "cannot mount on \(path)" + Self.said(detail)
            case .signalHandlersFailed: return "cannot install the signal handlers"
            case .loopFailed(let code): return "the FUSE session failed: \(String(cString: strerror(code)))"
            case .ringUnavailable:
                return "io_uring=on, but the kernel does not offer FUSE over io_uring (\(RingTransport.parameter) is not Y; "
                    + "as root: echo Y > \(RingTransport.parameter), on Linux 6.14 or later)"
            }
        }

        /// libfuse's message, on the same line.
        private static func said(_ detail: String) -> String {
            let line = detail.split(whereSeparator: \.isNewline).joined(separator: " ").trimmedSpaces
            return line.isEmpty ? "" : ": " + line
        }
    }

    public let mountpoint: String
    public let options: Options
    /// Where the model sends invalidations; effective while `run()` is serving.
    public var kernelCache: KernelCache { notifier }
    private let filesystem: Filesystem
    private let notifier: KernelNotifier
    private let exit = ExitRequest()

    /// `notifier` is the kernel cache the filesystem was built with (its caches hold it from the start).
    public init(
        filesystem: Filesystem, mountpoint: String, options: Options = Options(), notifier: KernelNotifier = KernelNotifier()
    ) {
        self.filesystem = filesystem
        self.mountpoint = mountpoint
        self.options = options
        self.notifier = notifier
    }

    /// Mounts, serves until the loop ends, then unmounts; returns the signal that ended it, or 0.
    /// Blocks; call it once. `mounted` runs once the kernel shows the mount, before any request.
    @discardableResult
    public func run(mounted: () -> Void = {}) throws -> Int32 {
        let useRing = options.ioURing != .off && RingTransport.kernelEnabled
        if options.ioURing == .on && !useRing { throw Failure.ringUnavailable }
        if !useRing { options.transport(options.ioURing == .off ? "/dev/fuse (io_uring=off)" : "/dev/fuse (io_uring: the kernel does not offer it)") }
        let served = MountContext(filesystem: filesystem, caching: options.caching, notifier: notifier)
        let userdata = Unmanaged.passRetained(served)
        defer { userdata.release() }
        packfs_fuse_log_capture(1)
        guard let session = makeSession(userdata.toOpaque()) else {
            packfs_fuse_log_capture(0)
            throw Failure.invalidOptions(options.mountOptions, detail: String(cString: packfs_fuse_log_last()))
        }
        defer { fuse_session_destroy(session) }
        guard fuse_session_mount(session, mountpoint) == 0 else {
            packfs_fuse_log_capture(0)
            throw Failure.mountFailed(mountpoint, detail: String(cString: packfs_fuse_log_last()))
        }
        packfs_fuse_log_capture(0)
        if useRing { try installRing(session, served) }
        defer {
            fuse_session_unmount(session)
            served.ring?.stop()
            notifier.waitUntilIdle()
        }
        if options.handlesSignals && fuse_set_signal_handlers(session) != 0 { throw Failure.signalHandlersFailed }
        defer { if options.handlesSignals { fuse_remove_signal_handlers(session) } }
        notifier.attach(session)
        defer { notifier.detach() }
        mounted()
        let result = exit.serve(session, mountpoint: mountpoint, chainSignals: options.handlesSignals) {
            loop(session, ring: served.ring)
        }
        if result < 0 { throw Failure.loopFailed(errno: -result) }
        return result
    }

    /// libfuse's I/O through `RingTransport`'s hooks, which start the ring once INIT is answered.
    private func installRing(_ session: OpaquePointer, _ served: MountContext) throws {
        let fd = fuse_session_fd(session)
        served.ring = RingTransport(session: session, fd: fd, report: options.transport)
        var hooks = RingTransport.hooks
        guard fuse_session_custom_io(session, &hooks, fd) == 0 else {
            fuse_session_unmount(session)
            throw Failure.mountFailed(mountpoint, detail: "libfuse refused the io_uring transport's I/O hooks")
        }
    }

    /// Ends `run()` from any thread: it unmounts and returns. Harmless before or after `run()`.
    public func stop() { exit.request() }

    private func loop(_ session: OpaquePointer, ring: RingTransport?) -> Int32 {
        let workers = WorkerLoop(session: session, maxWorkers: options.maxThreads)
        ring?.whenExited { workers.wake() }
        return workers.run()
    }

    private func makeSession(_ userdata: UnsafeMutableRawPointer) -> OpaquePointer? {
        var ops = Operations.table()
        return withArguments(["packfs"] + Self.arguments(for: options.mountOptions)) { args in
            fuse_session_new(&args, &ops, MemoryLayout<fuse_lowlevel_ops>.size, userdata)
        }
    }

    /// `-o` pairs for libfuse, with `default_permissions` added to `allow_other`.
    static func arguments(for mountOptions: [String]) -> [String] {
        var words = mountOptions.flatMap { $0.split(separator: ",").map(String.init) }.filter { !$0.isEmpty }
        if words.contains("allow_other") && !words.contains("default_permissions") { words.append("default_permissions") }
        return words.isEmpty ? [] : ["-o", words.joined(separator: ",")]
    }
}

/// Calls `body` with a `fuse_args` over C copies of `arguments`, freed after (libfuse copies what it keeps).
func withArguments<T>(_ arguments: [String], _ body: (inout fuse_args) -> T) -> T {
    var pointers = arguments.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { buffer in
        var args = fuse_args(argc: Int32(buffer.count), argv: buffer.baseAddress, allocated: 0)
        defer { fuse_opt_free_args(&args) }
        return body(&args)
    }
}
