import Basics
import Foundation
import PackStore

/// Paths every test target needs: the project root and its fixtures, found from this file's
/// location so tests run from any working directory.
public enum ProjectPaths {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = root.appendingPathComponent("Fixtures")
    public static let world = fixtures.appendingPathComponent("world")
}

/// A fresh temporary directory, removed by `remove()` (call it from tearDown).
public final class TemporaryDirectory: Sendable {
    public let url: URL
    public init(prefix: String = "packfs-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Executables built next to the test bundle (`.build/<config>/`), whatever the scratch path.
public enum BuiltProducts {
    public static var directory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    public static func executable(_ name: String) -> URL { directory.appendingPathComponent(name) }
}

/// `CI=true`: tests that need a real part (FUSE, nginx, python packages) must fail, not skip.
public var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

/// Runs a program to its end, as a user's shell would.
public enum Command {
    /// What a program printed, stdout and stderr apart, and how it exited.
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// `text` is stdout and stderr together, in the order written; `environment` adds to (or
    /// replaces) this process's. A program still running after `timeout` seconds is killed, so
    /// no test hangs on it.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval = 300
    ) throws -> (status: Int32, text: String) {
        let pipe = Pipe()
        let (status, text) = try launch(executable, arguments, environment: environment, timeout: timeout,
                                        output: pipe, error: pipe) { pipe.fileHandleForReading.readDataToEndOfFile() }
        return (status, String(decoding: text, as: UTF8.self))
    }

    /// As `run`, with stdout and stderr apart (both read at once: a full pipe would block the
    /// program).
    public static func runApart(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval = 300
    ) throws -> Outcome {
        let out = Pipe(), err = Pipe()
        let stderr = LockedState(Data())
        let drained = DispatchSemaphore(value: 0)
        let (status, stdout) = try launch(executable, arguments, environment: environment, timeout: timeout,
                                          output: out, error: err) {
            Thread.detachNewThread {
                let data = err.fileHandleForReading.readDataToEndOfFile()
                stderr.withLock { $0 = data }
                drained.signal()
            }
            return out.fileHandleForReading.readDataToEndOfFile()
        }
        drained.wait()
        return Outcome(status: status, stdout: String(decoding: stdout, as: UTF8.self),
                       stderr: String(decoding: stderr.withLock { $0 }, as: UTF8.self))
    }

    /// The gzip member `/bin/gzip -c` with `options` writes for `data`: bytes made by another
    /// compressor than PackFS's.
    public static func gzip(_ data: Data, _ options: [String] = []) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = options + ["-c"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let member = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return member
    }

    /// Starts the program with its output going to `output` and `error`, reads with `read`
    /// until it is done, and waits for its exit (killing it after `timeout` seconds).
    private static func launch(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: TimeInterval,
        output: Pipe, error: Pipe, read: () -> Data
    ) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = read()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, data)
    }
}

/// The `packfs` executable built with the tests.
public enum Packfs {
    public static var path: String { BuiltProducts.executable("packfs").path }

    /// `packfs arguments` to its end; `text` is stdout and stderr together.
    public static func run(_ arguments: [String], timeout: TimeInterval = 300) throws -> (status: Int32, text: String) {
        try Command.run(path, arguments, timeout: timeout)
    }
}

/// What a test class makes once, in `class func setUp`, for all of its tests (a server, a
/// downloaded pack), or the error that stopped it: each test then gets the value or fails with
/// that error. XCTest runs one class's setUp, tests and tearDown one after another; the lock
/// says so to the compiler.
public final class ClassFixture<Value>: Sendable {
    public struct NotSetUp: Error {}

    private let state = LockedState<Result<Value, Error>?>(nil)

    public init() {}

    /// Runs `make` and keeps what it gives (or throws).
    public func setUp(_ make: () throws -> Value) {
        let made = Result(catching: make)
        state.withLock { $0 = made }
    }

    /// The value `setUp` made; its error if it failed.
    public func value() throws -> Value {
        guard let made = state.withLock({ $0 }) else { throw NotSetUp() }
        return try made.get()
    }

    /// Hands the value (if any) to `body` and forgets it.
    public func tearDown(_ body: (Value) -> Void) {
        let made = state.withLock { state in
            defer { state = nil }
            return state
        }
        if case .success(let value)? = made { body(value) }
    }
}

/// Polls `condition` every 20 ms for up to `timeout` seconds; true once it holds. Tests wait for a
/// condition with a deadline, never for a fixed time; one that checks that nothing more happened
/// waits for an event that proves it (`TestServer.settledAccessLog`, a state in progress.json).
public func eventually(timeout: TimeInterval = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        if Date() > deadline { return false }
        usleep(20_000)
    }
    return true
}
