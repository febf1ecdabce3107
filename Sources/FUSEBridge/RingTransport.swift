import Basics
import CFuse
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// FUSE over io_uring (Linux 6.14+; docs/mount.md, "FUSE over io_uring"): one queue per possible CPU, and each reply
/// commits its entry and fetches the next request in one submission. It rides on libfuse's custom I/O: the read hook
/// sees whether the kernel's INIT offers the ring, the writev hook accepts it in libfuse's INIT reply, starts the ring
/// threads once that reply is written, and routes each reply to a ring request into its entry. Ring requests go through
/// `fuse_session_process_buf`, so every handler is the same. FORGET, INTERRUPT and notifications stay on /dev/fuse
/// (`WorkerLoop`), as does everything if the kernel refuses the entries.
final class RingTransport: @unchecked Sendable {  // `session` is libfuse's (its processing is thread-safe); the rest is in `state`
    /// The kernel's switch (root may write it; Debian's default is N).
    static let parameter = "/sys/module/fuse/parameters/enable_uring"

    /// Whether the kernel offers FUSE over io_uring to new mounts.
    static var kernelEnabled: Bool {
        (try? String(contentsOfFile: parameter, encoding: .utf8))?.hasPrefix("Y") == true
    }

    // Tried: growing a busy queue's threads up to 16; readers then starved a refresh of CPU
    // (docs/benchmarks.md, "Designs measured and set aside").
    /// Ring threads per queue, one entry each: a thread takes a request only when back in the
    /// kernel, so a second entry would wait behind the request it serves.
    static let threadsPerQueue = 4

    private struct State {
        var initUnique: UInt64 = 0
        var offered = false
        var accepted = false
        var threads: [RingThread] = []
        var queues = 0
        var whenExited: (@Sendable () -> Void)?
    }

    private let session: OpaquePointer
    private let fd: Int32
    private let report: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// `report` is told once which transport serves, in words for the log and status.json.
    init(session: OpaquePointer, fd: Int32, report: @escaping @Sendable (String) -> Void) {
        self.session = session
        self.fd = fd
        self.report = report
    }

    /// The hooks libfuse calls instead of read(2) and writev(2); `userdata` is the `MountContext`.
    static let hooks = fuse_custom_io(
        writev: { fd, iov, count, userdata in
            guard let iov, let ring = RingTransport.of(userdata) else { return Glibc.writev(fd, iov, count) }
            return ring.writev(fd, UnsafePointer(iov), count)
        },
        read: { fd, buffer, length, userdata in
            let count = Glibc.read(fd, buffer, length)
            if count > 0, let buffer, let ring = RingTransport.of(userdata) {
                ring.received(UnsafeRawBufferPointer(start: buffer, count: count))
            }
            return count
        },
        splice_receive: nil, splice_send: nil)

    private static func of(_ userdata: UnsafeMutableRawPointer?) -> RingTransport? {
        userdata.map { Unmanaged<MountContext>.fromOpaque($0).takeUnretainedValue() }?.ring
    }

    /// A request read from /dev/fuse: notes the INIT and whether it offers the ring.
    private func received(_ request: UnsafeRawBufferPointer) {
        guard request.count >= 40 + 20, request.load(fromByteOffset: 4, as: UInt32.self) == PACKFS_FUSE_INIT_OPCODE else { return }
        let flags = request.loadUnaligned(fromByteOffset: 40 + 12, as: UInt32.self)
        let flags2 = request.loadUnaligned(fromByteOffset: 40 + 16, as: UInt32.self)
        let unique = request.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        state.withLock {
            $0.initUnique = unique
            $0.offered = flags & PACKFS_FUSE_INIT_EXT != 0 && flags2 & PACKFS_FUSE_OVER_IO_URING_FLAGS2 != 0
        }
    }

    private func writev(_ fd: Int32, _ iov: UnsafePointer<iovec>, _ count: Int32) -> Int {
        let unique = iov[0].iov_len >= 16 ? iov[0].iov_base.loadUnaligned(fromByteOffset: 8, as: UInt64.self) : 0
        if unique != 0, let entry = RingEntry.thread.current, entry.unique == unique { return entry.reply(iov, count) }
        let isInit = unique != 0 && state.withLock { $0.initUnique == unique && $0.initUnique != 0 }
        if isInit { acceptRing(in: iov, count) }
        let written = Glibc.writev(fd, iov, count)
        if isInit && written >= 0 { start() }
        return written
    }

    /// Accepts the ring in libfuse's INIT reply when offered and every ring could be made (the
    /// kernel then holds requests until every queue has an entry); payloads fit its largest request.
    private func acceptRing(in iov: UnsafePointer<iovec>, _ count: Int32) {
        let offered = state.withLock { $0.offered }
        guard offered, count >= 2, iov[1].iov_len >= 36, let reply = iov[1].iov_base else { return }
        var flags = reply.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        let maxWrite = Int(reply.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
        let maxPages = flags & UInt32(1 << 22) != 0 ? Int(reply.loadUnaligned(fromByteOffset: 28, as: UInt16.self)) : 32
        let payload = (max(8192, maxWrite, maxPages * 4096) + 4095) / 4096 * 4096
        let queues = Self.possibleCPUs()
        guard let threads = makeThreads(queues: queues, payloadBytes: payload) else { return }
        flags |= PACKFS_FUSE_INIT_EXT
        reply.storeBytes(of: flags, toByteOffset: 12, as: UInt32.self)
        let flags2 = reply.loadUnaligned(fromByteOffset: 32, as: UInt32.self) | PACKFS_FUSE_OVER_IO_URING_FLAGS2
        reply.storeBytes(of: flags2, toByteOffset: 32, as: UInt32.self)
        state.withLock {
            $0.accepted = true
            $0.threads = threads
            $0.queues = queues
        }
    }

    /// A ring thread (not started) per entry of every queue; nil if any cannot be made.
    private func makeThreads(queues: Int, payloadBytes: Int) -> [RingThread]? {
        var threads: [RingThread] = []
        for queue in 0..<queues {
            for index in 0..<Self.threadsPerQueue {
                guard let thread = RingThread(session: session, fd: fd, queue: UInt16(truncatingIfNeeded: queue),
                                              pinning: RingThread.pinning(ofThread: index), payloadBytes: payloadBytes,
                                              served: { [weak self] in self?.served() },
                                              failed: { [report] in report("/dev/fuse (io_uring refused: \($0))") })
                else {
                    for made in threads { made.join() }
                    return nil
                }
                threads.append(thread)
            }
        }
        return threads
    }

    /// After the INIT reply (the kernel refuses entries before): starts the ring threads, or says why not.
    private func start() {
        let (offered, accepted, threads, queues) = state.withLock { ($0.offered, $0.accepted, $0.threads, $0.queues) }
        guard accepted else {
            report(offered ? "/dev/fuse (io_uring: its rings could not be made)" : "/dev/fuse (io_uring: the kernel did not offer it)")
            return
        }
        let running = threads.filter { $0.start() }
        if running.count < threads.count {
            RingThread.refuseRing(fd: fd)
            report("/dev/fuse (io_uring: \(threads.count - running.count) ring threads could not start)")
            return
        }
        report("io_uring (\(queues) queues, \(Self.threadsPerQueue) threads each)")
    }

    /// `wake` runs once when a ring thread finds the session exited, to wake the workers on /dev/fuse.
    func whenExited(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.whenExited = wake }
    }

    /// Called by a ring thread after a request that finds the session told to exit.
    func served() {
        guard fuse_session_exited(session) != 0 else { return }
        let wake = state.withLock { state in
            defer { state.whenExited = nil }
            return state.whenExited
        }
        wake?()
    }

    /// Stops the ring threads and frees their rings (after the unmount: requests no longer come).
    func stop() {
        let threads = state.withLock { state in
            defer { state.threads = [] }
            return state.threads
        }
        for thread in threads { thread.wake() }
        for thread in threads { thread.join() }
    }

    /// The kernel makes one queue per possible CPU (`/sys/devices/system/cpu/possible`).
    static func possibleCPUs() -> Int {
        let ranges = (try? String(contentsOfFile: "/sys/devices/system/cpu/possible", encoding: .utf8)) ?? ""
        var highest = -1
        for part in ranges.split(separator: ",") {
            let bounds = part.trimmed.split(separator: "-").compactMap { Int($0) }
            if let last = bounds.last { highest = max(highest, last) }
        }
        return highest >= 0 ? highest + 1 : max(1, sysconf(Int32(_SC_NPROCESSORS_CONF)))
    }
}
