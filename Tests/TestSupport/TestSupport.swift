import Foundation

/// Paths every test target needs: the project root and its fixtures, found from this file's
/// location so tests run from any working directory.
public enum ProjectPaths {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = root.appendingPathComponent("Fixtures")
    public static let world = fixtures.appendingPathComponent("world")
}

/// A fresh temporary directory, removed by `remove()` (call it from tearDown).
public final class TemporaryDirectory {
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
    /// `text` is stdout and stderr together; `environment` adds to (or replaces) this process's.
    /// A program still running after `timeout` seconds is killed, so no test hangs on it.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval = 300
    ) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// What a test class makes once, in `class func setUp`, for all of its tests (a server, a
/// downloaded pack), or the error that stopped it: each test then gets the value or fails with
/// that error. XCTest runs one class's setUp, tests and tearDown one after another; the lock
/// says so to the compiler.
public final class ClassFixture<Value>: @unchecked Sendable {  // `state` is guarded by `lock`
    public struct NotSetUp: Error {}

    private let lock = NSLock()
    private var state: Result<Value, Error>?

    public init() {}

    /// Runs `make` and keeps what it gives (or throws).
    public func setUp(_ make: () throws -> Value) {
        let made = Result(catching: make)
        lock.withLock { state = made }
    }

    /// The value `setUp` made; its error if it failed.
    public func value() throws -> Value {
        guard let state = lock.withLock({ state }) else { throw NotSetUp() }
        return try state.get()
    }

    /// Hands the value (if any) to `body` and forgets it.
    public func tearDown(_ body: (Value) -> Void) {
        let made = lock.withLock { () -> Result<Value, Error>? in
            defer { state = nil }
            return state
        }
        if case .success(let value)? = made { body(value) }
    }
}

/// A value the threads of a test share (a callback's findings, failures counted by readers).
public final class Locked<Value>: @unchecked Sendable {  // `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value { lock.withLock { stored } }

    public func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

/// Polls `condition` every 20 ms for up to `timeout` seconds; true once it holds. Tests wait for a
/// condition with a deadline, never for a fixed time.
public func eventually(timeout: TimeInterval = 60, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
        if Date() > deadline { return false }
        usleep(20_000)
    }
    return true
}
