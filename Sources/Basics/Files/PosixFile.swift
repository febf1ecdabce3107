import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// An open file whose reads and writes throw the errno, where FileHandle needs full Foundation and
/// traps on an I/O error (a full disk) in its older calls.
public final class PosixFile: @unchecked Sendable {  // `descriptor` is immutable until `close`, which its owner calls once
    public enum Access { case read, write, readWrite }

    public private(set) var descriptor: Int32
    private let owned: Bool

    /// Opens `path`; `create` makes it when missing (`permissions`), `truncate` empties it.
    public init(path: String, access: Access, create: Bool = false, truncate: Bool = false,
                permissions: mode_t = 0o644) throws(SystemError) {
        var flags: Int32 = O_CLOEXEC
        switch access {
        case .read: flags |= O_RDONLY
        case .write: flags |= O_WRONLY
        case .readWrite: flags |= O_RDWR
        }
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        let fd = open(path, flags, permissions)
        guard fd >= 0 else { throw Self.lastError() }
        descriptor = fd
        owned = true
    }

    /// A descriptor the caller keeps open (standard output, a pipe's end it closes itself).
    public init(borrowing descriptor: Int32) {
        self.descriptor = descriptor
        owned = false
    }

    deinit { if owned { close() } }

    public static var standardOutput: PosixFile { PosixFile(borrowing: STDOUT_FILENO) }

    /// Up to `count` bytes from the current position; fewer only at the end of the file.
    public func read(upTo count: Int) throws(SystemError) -> Data {
        try fill(count) { buffer, done in Glibc.read(descriptor, buffer + done, count - done) }
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file. An offset past what
    /// a file can hold (one read from a damaged header) is EINVAL, never a trap.
    public func read(at offset: UInt64, count: Int) throws(SystemError) -> Data {
        guard let start = off_t(exactly: offset), count >= 0, start <= off_t.max - off_t(count) else {
            throw SystemError(code: EINVAL)
        }
        return try fill(count) { buffer, done in pread(descriptor, buffer + done, count - done, start + off_t(done)) }
    }

    /// All of `data`, at the current position.
    public func write(_ data: Data) throws(SystemError) {
        var done = 0
        var failure: SystemError?
        data.withUnsafeBytes { bytes in
            while done < bytes.count, let base = bytes.baseAddress {
                let wrote = Glibc.write(descriptor, base + done, bytes.count - done)
                if wrote < 0, errno == EINTR { continue }
                // A write that takes nothing would loop forever: EIO, as for a failing device.
                guard wrote > 0 else {
                    failure = wrote == 0 ? SystemError(code: EIO) : Self.lastError()
                    return
                }
                done += wrote
            }
        }
        if let failure { throw failure }
    }

    /// Moves to the end; the file's size.
    @discardableResult
    public func seekToEnd() throws(SystemError) -> UInt64 {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else { throw Self.lastError() }
        return UInt64(end)
    }

    public func seek(to offset: UInt64) throws(SystemError) {
        guard let position = off_t(exactly: offset) else { throw SystemError(code: EINVAL) }
        guard lseek(descriptor, position, SEEK_SET) >= 0 else { throw Self.lastError() }
    }

    /// Data and metadata on the disk (fsync).
    public func synchronize() throws(SystemError) {
        guard fsync(descriptor) == 0 else { throw Self.lastError() }
    }

    /// Closes an owned descriptor; later calls do nothing.
    public func close() {
        guard owned, descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    private func fill(_ count: Int, _ call: (UnsafeMutableRawPointer, Int) -> Int) throws(SystemError) -> Data {
        guard count > 0 else { return Data() }
        var data = Data(count: count)
        var done = 0
        var failure: SystemError?
        data.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            while done < count {
                let got = call(base, done)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = Self.lastError()
                    return
                }
                if got == 0 { return }
                done += got
            }
        }
        if let failure { throw failure }
        data.count = done
        return data
    }

    static func lastError() -> SystemError { SystemError(code: errno) }
}

/// A failed system call's errno, described as strerror(3) does ("No space left on device").
public struct SystemError: Error, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    public var description: String { String(cString: strerror(code)) }
}
