import Basics
import CFuse
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// One FUSE ring entry: the kernel's header and payload buffers for request and reply, and the
/// request laid out as a /dev/fuse read gives it, for libfuse. Used by its ring thread alone.
final class RingEntry: @unchecked Sendable {  // one thread's: its `RingThread`, and the writev hook on that thread
    private let ring: UnsafeMutablePointer<io_uring>
    private let fd: Int32
    let queue: UInt16
    private let header: UnsafeMutablePointer<packfs_uring_req_header>
    private let payload: UnsafeMutableRawPointer
    private let payloadBytes: Int
    /// The request as libfuse reads it: in header (40 bytes), the operation's struct, the payload.
    private let request: UnsafeMutableRawPointer
    private let buffers: UnsafeMutablePointer<iovec>
    private var cookie: UInt64 = 0
    /// The request being served (0: none, or answered).
    private(set) var unique: UInt64 = 0

    private static let inHeader = 40
    private static let outHeader = 16

    init(ring: UnsafeMutablePointer<io_uring>, fd: Int32, queue: UInt16, payloadBytes: Int) {
        self.ring = ring
        self.fd = fd
        self.queue = queue
        self.payloadBytes = payloadBytes
        header = .allocate(capacity: 1)
        header.initialize(to: packfs_uring_req_header())
        payload = .allocate(byteCount: payloadBytes, alignment: 4096)
        request = .allocate(byteCount: Self.inHeader + 128 + payloadBytes, alignment: 16)
        buffers = .allocate(capacity: 2)
        buffers[0] = iovec(iov_base: UnsafeMutableRawPointer(header), iov_len: MemoryLayout<packfs_uring_req_header>.size)
        buffers[1] = iovec(iov_base: payload, iov_len: payloadBytes)
    }

    // The buffers are never freed: the kernel keeps their addresses until the connection ends,
    // and a mount makes a handful of entries once.

    /// The entry the calling thread is serving, for the writev hook.
    static let thread = ThreadSlot<RingEntry>()

    func register(cookie: UInt64) {
        self.cookie = cookie
        guard let sqe = io_uring_get_sqe(ring) else { return }
        packfs_uring_prep_cmd(sqe, fd, UInt32(PACKFS_URING_CMD_REGISTER), queue, 0, buffers, cookie)
    }

    /// Serves the entry's request through libfuse (replies come by the writev hook); commits it empty if none came.
    func serve(_ session: OpaquePointer) {
        let raw = UnsafeMutableRawPointer(header)
        let length = Int(raw.load(as: UInt32.self))
        let received = Int(header.pointee.ring_ent_in_out.payload_sz)
        let operation = length - Self.inHeader - received
        unique = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        guard (0...128).contains(operation), received <= payloadBytes, unique != 0 else { return commit(error: -EIO) }
        request.copyMemory(from: raw, byteCount: Self.inHeader)
        request.advanced(by: Self.inHeader).copyMemory(from: raw.advanced(by: 128), byteCount: operation)
        request.advanced(by: Self.inHeader + operation).copyMemory(from: payload, byteCount: received)
        var buffer = fuse_buf(size: length, flags: fuse_buf_flags(rawValue: 0), mem: request, fd: -1, pos: 0)
        Self.thread.current = self
        fuse_session_process_buf(session, &buffer)
        Self.thread.current = nil
        if unique != 0 { commit(error: 0) }
    }

    /// A reply from libfuse (`iov[0]` the out header): into the entry's buffers, then committed.
    func reply(_ iov: UnsafePointer<iovec>, _ count: Int32) -> Int {
        var used = 0
        for index in 1..<max(1, Int(count)) {
            let part = iov[index]
            guard used + part.iov_len <= payloadBytes else { commit(error: -EIO); return -1 }
            if let base = part.iov_base { payload.advanced(by: used).copyMemory(from: base, byteCount: part.iov_len) }
            used += part.iov_len
        }
        let raw = UnsafeMutableRawPointer(header)
        raw.copyMemory(from: iov[0].iov_base, byteCount: Self.outHeader)
        header.pointee.ring_ent_in_out.payload_sz = UInt32(truncatingIfNeeded: used)
        submitCommit()
        return Self.outHeader + used
    }

    /// An answer without data (`error` 0 or a negative errno).
    private func commit(error: Int32) {
        let raw = UnsafeMutableRawPointer(header)
        raw.storeBytes(of: UInt32(Self.outHeader), toByteOffset: 0, as: UInt32.self)
        raw.storeBytes(of: error, toByteOffset: 4, as: Int32.self)
        raw.storeBytes(of: unique, toByteOffset: 8, as: UInt64.self)
        header.pointee.ring_ent_in_out.payload_sz = 0
        submitCommit()
    }

    /// Submits the commit `reply` queued now, not at the loop back to the kernel, so the request's
    /// notifications follow its reply (`KernelNotifier`). Called only when there are some.
    func submitQueued() {
        _ = io_uring_submit(ring)
    }

    private func submitCommit() {
        let commitID = header.pointee.ring_ent_in_out.commit_id
        unique = 0
        guard let sqe = io_uring_get_sqe(ring) else { return }
        packfs_uring_prep_cmd(sqe, fd, UInt32(PACKFS_URING_CMD_COMMIT_AND_FETCH), queue, commitID, nil, cookie)
    }
}
