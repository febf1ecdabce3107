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
