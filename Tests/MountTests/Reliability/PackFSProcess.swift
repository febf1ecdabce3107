import Foundation
import TestSupport
import XCTest

/// A `packfs` process the test can SIGKILL: `packfs mount -f` (the daemon itself: `packfs mount`
/// without -f only starts this same command with -f in a new session and exits) or a command
/// such as `packfs download`. Its stderr goes to `log`.
final class PackFSProcess {
    let process = Process()
    let log: String
    /// Set for a mount: where it is mounted.
    let mountpoint: String?

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    private init(_ arguments: [String], log: String, mountpoint: String?) throws {
        self.log = log
        self.mountpoint = mountpoint
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = URL(fileURLWithPath: Packfs.path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: log)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
    }

    /// Starts the mount daemon and returns once the mount answers statfs (it serves).
    static func mount(db: String, at mountpoint: String, log: String, extra: [String] = []) throws -> PackFSProcess {
        let daemon = try PackFSProcess(["mount", "-f", db, mountpoint] + extra, log: log, mountpoint: mountpoint)
        var figures = statvfs()
        let up = eventually(timeout: 30) {
            !daemon.isRunning || (MountHelper.isFUSE(mountpoint) && statvfs(mountpoint, &figures) == 0)
        }
        guard up, daemon.isRunning else {
            daemon.kill9()
            throw Failure("the mount did not come up: \(daemon.logText)")
        }
        return daemon
    }

    /// Starts `packfs <arguments>` (download, refresh, remove...).
    static func command(_ arguments: [String], log: String) throws -> PackFSProcess {
        try PackFSProcess(arguments, log: log, mountpoint: nil)
    }

    /// SIGKILL, then the dead mount (if any) is taken down as a user would: a lazy unmount.
    /// Returns the moment the process was certainly gone.
    @discardableResult
    func kill9() -> Date {
        if process.isRunning { kill(pid, SIGKILL) }
        if !waitForExit(timeout: 10), let mountpoint {
            // A thread stuck in the kernel keeps the killed daemon alive (and the mount's callers
            // waiting): say where, then abort the connection (umount -f) so the run can go on.
            XCTFail("the killed daemon did not exit: \(kernelStacks())")
            MountHelper.runTool("/bin/umount", ["-f", mountpoint])
            waitForExit(timeout: 30)
        }
        let dead = Date()
        if let mountpoint { Self.cleanUpDeadMount(mountpoint) }
        return dead
    }

    /// The kernel stacks of the threads still there (root reads them).
    private func kernelStacks() -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.map { task in
            let stack = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stack", encoding: .utf8)) ?? ""
            return "thread \(task): " + stack.split(separator: "\n").prefix(3).joined(separator: " < ")
        }.joined(separator: "; ")
    }

    /// SIGTERM (a clean unmount for the daemon) and waits for the exit status.
    @discardableResult
    func terminate(timeout: TimeInterval = 60) -> Int32 {
        if process.isRunning { kill(pid, SIGTERM) }
        waitForExit(timeout: timeout)
        if process.isRunning { kill9() }
        return process.isRunning ? -1 : process.terminationStatus
    }

    /// Waits (bounded) for the process to end; true when it did.
    @discardableResult
    func waitForExit(timeout: TimeInterval) -> Bool {
        eventually(timeout: timeout) { !process.isRunning }
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Whether the process has the file open (it is past its startup, working on the database).
    func hasOpen(_ path: String) -> Bool {
        let directory = "/proc/\(pid)/fd"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == path }
    }

    /// A mount whose daemon died answers ENOTCONN: fusermount3 -u -z, then umount -l.
    static func cleanUpDeadMount(_ mountpoint: String) {
        if MountHelper.isFUSE(mountpoint) { MountHelper.runTool("/usr/bin/fusermount3", ["-u", "-z", mountpoint]) }
        if MountHelper.isFUSE(mountpoint) { MountHelper.runTool("/bin/umount", ["-l", mountpoint]) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
