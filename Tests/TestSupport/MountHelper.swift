import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real FUSE mount for a test: a fresh mountpoint, a server running on a background thread,
/// polling until the kernel shows the mount, and an unmount that always happens.
///
/// ```
/// override func setUpWithError() throws {
///     try MountHelper.requireFUSE()
///     mount = try MountHelper(in: temp)
///     let fuse = FUSEMount(filesystem: fs, mountpoint: mount.path)
///     try mount.start { try fuse.run() }
/// }
/// override func tearDown() { mount?.unmount() }
/// ```
public final class MountHelper: @unchecked Sendable {  // `outcome` and `serving` are guarded by `lock`
    /// The test's directory (`PackFSTestCase.temp`), which holds the mountpoint.
    public let directory: TemporaryDirectory
    public let path: String
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var outcome: Result<Int32, Error>?
    /// Whether `start` ran a server in this process (a daemon's mount has none to wait for).
    private var serving = false

    /// Skips without FUSE (a laptop without /dev/fuse or fusermount3); fails in CI.
    public static func requireFUSE(file: StaticString = #filePath, line: UInt = #line) throws {
        let missing = ["/dev/fuse", "/usr/bin/fusermount3"].filter { !FileManager.default.fileExists(atPath: $0) }
        guard !missing.isEmpty else { return }
        let message = "FUSE unavailable: missing \(missing.joined(separator: ", "))"
        if isCI { XCTFail(message, file: file, line: line) }
        throw XCTSkip(message)
    }

    /// Runs `serve` on a background thread (it blocks while mounted on `path`) and waits up to
    /// `timeout` seconds for the mount to answer statfs. Since statfs on a FUSE mount goes to the
    /// server, a mount that answers is one whose loop is running.
    public func start(timeout: TimeInterval = 10, serve: @escaping @Sendable () throws -> Int32) throws {
        lock.withLock { serving = true }
        Thread.detachNewThread {
            let result = Result { try serve() }
            self.lock.withLock { self.outcome = result }
            self.finished.signal()
        }
        try waitUntilMounted(timeout: timeout)
    }

    /// A fresh mountpoint `path`, `name` in the test's `directory`; nothing is mounted yet.
    public init(in directory: TemporaryDirectory, name: String = "mnt") throws {
        self.directory = directory
        path = directory.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Whether /proc/self/mountinfo lists a FUSE mount (type fuse or fuse.<subtype>) at `path`.
    public static func isFUSE(_ path: String) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return false }
        return table.split(separator: "\n").contains { line in
            // "id parent major:minor root mountpoint options [optional...] - type source super-options"
            let fields = line.split(separator: " ")
            guard fields.count > 4 else { return false }
            // mountinfo writes a space in a path as \040 (and tab, newline, backslash likewise).
            let mountpoint = fields[4].replacingOccurrences(of: "\\040", with: " ")
                .replacingOccurrences(of: "\\011", with: "\t").replacingOccurrences(of: "\\012", with: "\n")
                .replacingOccurrences(of: "\\134", with: "\\")
            guard mountpoint == path, let dash = fields.firstIndex(of: "-"),
                  dash + 1 < fields.count else { return false }
            return fields[dash + 1] == "fuse" || fields[dash + 1].hasPrefix("fuse.")
        }
    }

    public var isMounted: Bool { Self.isFUSE(path) }

    /// The server's result once it returned (nil while it still serves).
    public var result: Result<Int32, Error>? { lock.withLock { outcome } }

    private func waitUntilMounted(timeout: TimeInterval) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var figures = statvfs()
        while !(isMounted && statvfs(path, &figures) == 0) {
            if case .failure(let error)? = result { throw error }
            if Date() > deadline {
                unmount()
                throw MountFailure.timedOut(path)
            }
            usleep(20_000)
        }
    }

    /// Waits up to `timeout` seconds for the server to return; true if it did.
    @discardableResult
    public func waitForServer(timeout: TimeInterval = 10) -> Bool {
        if result != nil { return true }
        guard finished.wait(timeout: .now() + timeout) == .success else { return false }
        finished.signal()  // later waits see it too
        return true
    }

    /// `fusermount3 -u`, then a lazy unmount if that did not work, then waits for the server to
    /// return (when `start` ran one; a `packfs mount` daemon ends on its own). Safe to call twice;
    /// call it from tearDown, before the test's directory goes.
    public func unmount() {
        if isMounted { _ = Self.runTool("/usr/bin/fusermount3", ["-u", path]) }
        if isMounted { _ = Self.runTool("/usr/bin/fusermount3", ["-u", "-z", path]) }
        if isMounted { _ = Self.runTool("/bin/umount", ["-l", path]) }
        if lock.withLock({ serving }) { waitForServer(timeout: 10) }
    }

    /// Runs an executable; returns its exit status and standard output.
    @discardableResult
    public static func runTool(_ executable: String, _ arguments: [String]) -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return (-1, Data()) }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    public enum MountFailure: Error, CustomStringConvertible {
        case timedOut(String)
        public var description: String {
            switch self { case .timedOut(let path): return "no FUSE mount appeared at \(path)" }
        }
    }
}
