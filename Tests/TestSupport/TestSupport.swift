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
