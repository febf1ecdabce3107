import FUSEBridge
import Foundation
import PackFS
import TestSupport
import XCTest

/// Each test gets `MemoryFilesystem` mounted through the kernel at `root`, unmounted in tearDown.
class MountedTestCase: PackFSTestCase {
    var filesystem: MemoryFilesystem!
    var fuse: FUSEMount!
    var mount: MountHelper!
    var root: String { mount.path }

    /// Override to mount with other options.
    var mountOptions: FUSEMount.Options {
        FUSEMount.Options(mountOptions: ["fsname=memfs", "subtype=packfs"], maxThreads: 8, handlesSignals: false)
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try MountHelper.requireFUSE()
        let filesystem = MemoryFilesystem()
        let mount = try MountHelper(in: temp)
        let fuse = FUSEMount(filesystem: filesystem, mountpoint: mount.path, options: mountOptions)
        (self.filesystem, self.mount, self.fuse) = (filesystem, mount, fuse)
        try mount.start { try fuse.run() }
    }

    override func tearDown() {
        mount?.unmount()
        if let mount { XCTAssertFalse(mount.isMounted, "still mounted at \(mount.path)") }
        super.tearDown()
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// The errno a POSIX call left (0 when it succeeded).
    func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let (status, output) = MountHelper.runTool(executable, arguments)
        return (status, String(decoding: output, as: UTF8.self))
    }

    /// Names from opendir/readdir in the order the kernel returned them, without . and ..
    func listing(_ directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            // Read d_name in place: glibc allocates a dirent only as long as its name, so copying
            // the whole 256-byte field (as `entry.pointee.d_name` would) reads past it (ASan).
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension XCTestCase {
    /// The errno a failing libc call left, or 0 when it succeeded.
    func errnoOf(_ call: () -> Int32) -> Int32 { call() == -1 ? errno : 0 }
}
