@testable import FUSEBridge
import Foundation
import PackFS
import TestSupport
import XCTest

/// Ending a mount every way it can end, and the kernel caches the model clears.
final class LifecycleTests: MountedTestCase {
    func testStopEndsRunAndUnmounts() throws {
        fuse.stop()
        XCTAssertTrue(mount.waitForServer(timeout: 10), "run() did not return after stop()")
        XCTAssertEqual(try mount.result?.get(), 0)
        XCTAssertFalse(mount.isMounted)
    }

    func testFusermountEndsRun() throws {
        XCTAssertEqual(run("/usr/bin/fusermount3", ["-u", root]).status, 0)
        XCTAssertTrue(mount.waitForServer(timeout: 10), "run() did not return after fusermount3 -u")
        XCTAssertEqual(try mount.result?.get(), 0)
        XCTAssertFalse(mount.isMounted)
    }

    /// The thread that ends the loop sleeps until `stop()` or a signal wakes it; it used to poll
    /// every 50 ms, 20 wake-ups a second on an idle device. Shown without watching it for a
    /// while: once idle it is blocked in read(2) on its wake-up pipe, a call with no timeout
    /// (/proc/self/task/N/syscall), where a poller would be seen in nanosleep or poll.
    func testTheExitWatcherSleepsWhileTheMountIsIdle() throws {
        XCTAssertEqual(run("/bin/ls", [root]).status, 0)
        // The watcher names itself when it first runs, which under ThreadSanitizer on a loaded
        // machine came after the listing: wait for it, with a deadline.
        var calls: [String] = []
        let blocked = eventually(timeout: 30) {
            calls = Self.watcherSyscalls()
            return !calls.isEmpty && calls.allSatisfy { $0 == Self.readSyscall }
        }
        XCTAssertTrue(blocked, "the \(ExitRequest.threadName) threads are not all blocked in read(): \(calls)")
    }

    func testInvalidatedContentIsReadAgain() throws {
        let notes = try XCTUnwrap(filesystem.inode(at: "notes.txt"))
        XCTAssertEqual(run("/bin/cat", [path("notes.txt")]).output, "first\n")
        filesystem.replaceContent(of: notes, with: Data("FIRST\n".utf8))
        // Same size and mtime, kept cache: the kernel still serves its pages.
        XCTAssertEqual(run("/bin/cat", [path("notes.txt")]).output, "first\n")
        fuse.kernelCache.invalidate(inode: notes)
        XCTAssertTrue(eventually { self.run("/bin/cat", [self.path("notes.txt")]).output == "FIRST\n" })
    }

    func testInvalidatedNameIsLookedUpAgain() throws {
        let readme = try XCTUnwrap(filesystem.inode(at: "docs/readme.md"))
        var status = stat()
        XCTAssertEqual(stat(path("docs/readme.md"), &status), 0)
        filesystem.renameSilently(readme, to: "README.md")
        // The cached name still leads to the node until the model says otherwise.
        XCTAssertEqual(stat(path("docs/readme.md"), &status), 0)
        let docs = try XCTUnwrap(filesystem.inode(at: "docs"))
        fuse.kernelCache.invalidate(parent: docs, name: "readme.md")
        XCTAssertTrue(eventually { self.errnoOf { stat(self.path("docs/readme.md"), &status) } == ENOENT })
        XCTAssertEqual(stat(path("docs/README.md"), &status), 0)
    }

    func testInvalidationFromInsideAnOperationDoesNotDeadlock() throws {
        let notifier = KernelNotifier()
        let filesystem = InvalidatingFilesystem(cache: notifier)
        let mount = try MountHelper(in: temp, name: "invalidating")
        let fuse = FUSEMount(filesystem: filesystem, mountpoint: mount.path, options: mountOptions, notifier: notifier)
        defer { mount.unmount() }
        try mount.start { try fuse.run() }
        for _ in 0..<20 {
            XCTAssertEqual(FileManager.default.contents(atPath: mount.path + "/hello.txt"), MemoryFilesystem.hello)
        }
    }

    func testOptionsAddDefaultPermissionsToAllowOther() {
        XCTAssertEqual(FUSEMount.arguments(for: []), [])
        XCTAssertEqual(FUSEMount.arguments(for: ["allow_other", "fsname=x"]),
                       ["-o", "allow_other,fsname=x,default_permissions"])
        XCTAssertEqual(FUSEMount.arguments(for: ["ro,allow_other,default_permissions"]),
                       ["-o", "ro,allow_other,default_permissions"])
    }

    func testUnknownOptionFailsRun() throws {
        let other = try MountHelper(in: temp, name: "other")
        let fuse = FUSEMount(filesystem: MemoryFilesystem(), mountpoint: other.path,
                             options: FUSEMount.Options(mountOptions: ["no_such_option"], handlesSignals: false))
        XCTAssertThrowsError(try fuse.run()) { error in
            XCTAssertEqual(error as? FUSEMount.Failure, .invalidOptions(["no_such_option"], detail: "fuse: unknown option(s): `-o no_such_option'\n"))
            XCTAssertEqual(String(describing: error).split(separator: "\n").count, 1, "one line")
        }
    }

    /// read(2)'s system call number, as /proc/PID/task/TID/syscall prints it.
    #if arch(arm64)
    private static let readSyscall = "63"
    #else
    private static let readSyscall = "0"
    #endif

    /// The system call each thread named `ExitRequest.threadName` is blocked in (the first field
    /// of /proc/self/task/N/syscall: its number, or "running").
    private static func watcherSyscalls() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard name.trimmingCharacters(in: .whitespacesAndNewlines) == ExitRequest.threadName else { return nil }
            let call = (try? String(contentsOfFile: "/proc/self/task/\(task)/syscall", encoding: .utf8)) ?? ""
            return call.split(separator: " ").first.map(String.init) ?? "unreadable"
        }
    }
}

/// Signals reach the loop even when they land on a thread other than the loop's.
final class SignalTests: MountedTestCase {
    override var mountOptions: FUSEMount.Options {
        FUSEMount.Options(mountOptions: ["subtype=packfs"], maxThreads: 4, handlesSignals: true)
    }

    func testSIGHUPEndsRun() throws {
        XCTAssertEqual(kill(getpid(), SIGHUP), 0)
        XCTAssertTrue(mount.waitForServer(timeout: 10), "run() did not return after SIGHUP")
        XCTAssertEqual(try mount.result?.get(), SIGHUP)
        XCTAssertFalse(mount.isMounted)
    }
}

/// Invalidates the very node and name being served, from inside lookup and read: the bridge must
/// send the notifications later, or the kernel would wait on the reply the callback withholds.
final class InvalidatingFilesystem: MemoryFilesystem, @unchecked Sendable {  // MemoryFilesystem's `lock` guards its nodes
    let cache: KernelCache

    init(cache: KernelCache) {
        self.cache = cache
        super.init()
    }

    override func lookup(parent: Inode, name: String, caller: Caller) throws -> Entry {
        cache.invalidate(parent: parent, name: name)
        return try super.lookup(parent: parent, name: name, caller: caller)
    }

    override func read(inode: Inode, handle: UInt64, offset: Int64, size: Int) throws -> Data {
        cache.invalidate(inode: inode)
        return try super.read(inode: inode, handle: handle, offset: offset, size: size)
    }
}

/// Zero-message opens: the kernel stops sending open/opendir after the first ENOSYS and still
/// reads and lists everything.
final class StatelessOpenTests: MountedTestCase {
    override var mountOptions: FUSEMount.Options {
        FUSEMount.Options(caching: KernelCaching(statelessOpen: true, statelessOpendir: true), handlesSignals: false)
    }

    func testReadsAndListsWithoutOpens() throws {
        for _ in 0..<2 {
            XCTAssertEqual(FileManager.default.contents(atPath: path("large.bin")), MemoryFilesystem.large)
            XCTAssertEqual(try listing(path("many")).count, MemoryFilesystem.manyCount)
        }
    }
}
