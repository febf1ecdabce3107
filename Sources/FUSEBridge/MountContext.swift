import Basics
import CFuse
import FoundationEssentials
import PackFS
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// What every callback needs: the session's userdata, reached with `MountContext.of(req)`.
final class MountContext: Sendable {
    let filesystem: Filesystem
    let caching: KernelCaching
    /// Holds back the notifications a request makes until its reply is sent.
    let notifier: KernelNotifier
    /// What `init` agreed with the kernel; written once in `init`, before any other callback.
    private let agreed = LockedState(KernelCaching.Agreement())
    /// The io_uring transport: set once before the workers start, then read without a lock.
    nonisolated(unsafe) var ring: RingTransport?

    init(filesystem: Filesystem, caching: KernelCaching, notifier: KernelNotifier) {
        self.filesystem = filesystem
        self.caching = caching
        self.notifier = notifier
    }

    var agreement: KernelCaching.Agreement {
        get { agreed.withLock { $0 } }
        set { agreed.withLock { $0 = newValue } }
    }

    static func of(_ req: fuse_req_t?) -> MountContext? {
        guard let raw = fuse_req_userdata(req) else { return nil }
        return Unmanaged<MountContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs one request: thrown errors become errno, and exactly one reply is sent.
    static func serve(_ req: fuse_req_t?, _ operation: StaticString,
                      file: UnsafeMutablePointer<fuse_file_info>? = nil,
                      _ work: (MountContext, Caller) throws -> Reply) {
        guard let context = of(req) else { return Reply.error(EIO).send(req) }
        context.notifier.holding {
            let reply: Reply
            do {
                reply = try work(context, caller(req))
            } catch let error as FilesystemError {
                switch error {
                case .io: log(operation, "EIO", error)
                case .noSpace: log(operation, "ENOSPC", error)
                default: break
                }
                reply = .error(error.errno)
            } catch {
                log(operation, "EIO", error)
                reply = .error(EIO)
            }
            reply.send(req, file: file)
        }
    }

    static func caller(_ req: fuse_req_t?) -> Caller {
        guard let context = fuse_req_ctx(req) else { return Caller(uid: 0, gid: 0, pid: 0) }
        return Caller(uid: context.pointee.uid, gid: context.pointee.gid, pid: context.pointee.pid)
    }

    /// One line per failure whose cause the user cannot see: the operation, the errno, and why.
    static func log(_ operation: StaticString, _ errno: String, _ error: Error) {
        StandardError.write("packfs: \(operation) failed with \(errno): \(error)\n")
    }
}

/// A name argument from the kernel. Bytes that are not UTF-8 are refused (EINVAL), never repaired:
/// U+FFFD would create a pack under a name nobody gave.
func name(_ pointer: UnsafePointer<CChar>?) throws -> String {
    guard let pointer else { throw FilesystemError.invalid("missing name") }
    guard let name = String(validatingCString: pointer) else { throw FilesystemError.invalid("the name is not valid UTF-8") }
    return name
}

/// A name's bytes in place, without its NUL.
func bytes(of name: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name))
}

extension Inode {
    init(_ ino: fuse_ino_t) { self.init(rawValue: ino) }
}
