import Foundation

/// A small tmpfs of a test's own (root only), to put a database on a file system that is full or
/// read-only. `remove()` unmounts it (call it from tearDown).
public final class ScratchFilesystem {
    public let path: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Mounts a tmpfs of `size` (mount(8)'s form: "512k", "4m") at `path`, created if absent.
    public init(at path: String, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
    }

    /// Copies `file` in under `name`; returns its path there.
    public func copy(_ file: String, as name: String) throws -> String {
        let target = path + "/" + name
        try FileManager.default.copyItem(atPath: file, toPath: target)
        return target
    }

    public func remount(readOnly: Bool) throws {
        try Self.mount(["-o", readOnly ? "remount,ro" : "remount,rw", path])
    }

    /// Fills what is left with a file of zeros, until the kernel says the disk is full.
    public func fill() throws {
        let fd = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path)/filler") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    public func remove() {
        MountHelper.runTool("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func mount(_ arguments: [String]) throws {
        let (status, _) = MountHelper.runTool("/bin/mount", arguments)
        guard status == 0 else { throw Failure(description: "mount \(arguments.joined(separator: " ")) failed (\(status))") }
    }
}
