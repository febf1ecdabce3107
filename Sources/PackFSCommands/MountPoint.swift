import Basics
import FoundationEssentials
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

/// The directory a mount goes on, checked before anything is opened. A PackFS mount whose daemon died
/// (every access fails with ENOTCONN) is detached first, as a restarted service needs.
enum MountPoint {
    /// The absolute path to mount on, or a failure that names the path and the cause.
    static func prepare(_ path: String) throws -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var status = stat()
        if stat(absolute, &status) != 0 {
            let cause = errno
            guard cause == ENOTCONN, let type = mountType(at: absolute) else {
                throw CommandFailure("\(path): \(String(cString: strerror(cause)))")
            }
            guard type == "fuse.packfs" else {
                throw CommandFailure("\(path): a \(type) mount whose server is gone is in the way (fusermount3 -u)")
            }
            try detachDeadMount(absolute, as: path)
            guard stat(absolute, &status) == 0 else { throw CommandFailure("\(path): \(String(cString: strerror(errno)))") }
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw CommandFailure("\(path): not a directory") }
        if let type = mountType(at: absolute) {
            throw CommandFailure("\(path): already a mount point (\(type)); unmount it first")
        }
        return absolute
    }

    /// The file system type of the mount at `path` (the last one mounted there), if any.
    static func mountType(at path: String) -> String? {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        var found: String?
        for line in table.split(separator: "\n") {
            // "id parent major:minor root mountpoint options [optional...] - type source super"
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count > 4, unescape(fields[4]) == path, let dash = fields.firstIndex(of: "-"),
                dash + 1 < fields.count
            else { continue }
            found = fields[dash + 1]
        }
        return found
    }

    /// mountinfo writes a space, tab, newline and backslash in a path as \040, \011, \012, \134.
    static func unescape(_ field: String) -> String {
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "\\"), rest.count >= 3,
                let code = UInt8(String(decoding: rest.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(code)
                rest.removeFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func detachDeadMount(_ absolute: String, as path: String) throws {
        let status: Int32
        do {
            status = try ChildProcess.start("/usr/bin/fusermount3", ["-u", "-z", absolute],
                                            environment: ProcessInfo.processInfo.environment).wait()
        } catch {
            throw CommandFailure("\(path): a dead PackFS mount is in the way and fusermount3 cannot run: \(error)")
        }
        guard status == 0 else {
            throw CommandFailure("\(path): a dead PackFS mount is in the way and fusermount3 -u -z failed")
        }
        StandardError.write("packfs: \(path): detached the mount of a PackFS daemon that had died\n")
    }
}
