import Basics
import Foundation
import PackStore
import XCTest

/// nginx serving a directory as it is (Tests/web/serve-directory.sh) on a free 127.0.0.1 port,
/// with a JSON access log.
public final class WebSite {
    /// Tests/web: the page, the selenium driver, the server script.
    public static let pages = ProjectPaths.root.appendingPathComponent("Tests/web")

    public struct Request: Sendable {
        public var uri: String
        public var status: Int
    }

    public let port: Int
    private let process: Process
    private let log: URL

    /// Serves `root`; with `alias`, also `alias.prefix` from `alias.directory` (with a CORS
    /// header), as docs/web.md's nginx location for a mount does.
    public init(root: URL, state: URL, alias: (prefix: String, directory: String)? = nil) throws {
        var lastPort = 0
        for _ in 0..<5 {  // a free port may be taken before nginx binds it: try another
            let port = try LoopbackPort.free()
            lastPort = port
            let process = Process()
            process.executableURL = Self.pages.appendingPathComponent("serve-directory.sh")
            process.arguments = ["--root", root.path, "--state", state.path, "--port", "\(port)"]
                + (alias.map { ["--alias", $0.prefix, $0.directory] } ?? [])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if eventually(timeout: 30, { LoopbackPort.accepts(port) || !process.isRunning }), process.isRunning {
                self.port = port
                self.process = process
                log = state.appendingPathComponent("access.log")
                return
            }
            Self.stop(process)
        }
        throw TestServer.Failure.startFailed("serve-directory.sh did not listen (last port \(lastPort))")
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// The web page a `--web-base` mount shows, assembled from the checkout's web/ and MapLibre
    /// GL JS by `scripts/web-assets.sh` into `directory` (never the installed copy, which may be
    /// older than the checkout). Returns `directory`.
    public static func assemblePage(into directory: String) throws -> String {
        let script = ProjectPaths.root.appendingPathComponent("scripts/web-assets.sh").path
        let outcome = try Command.run(script, [directory], timeout: 60)
        guard outcome.status == 0 else { throw TestServer.Failure.startFailed("web-assets.sh: \(outcome.text)") }
        return directory
    }

    /// Every request answered so far. nginx logs a request once its answer is sent, in order: a
    /// request made now is logged after all those answered before it, so its line marks the end.
    public func requestsBeforeNow() throws -> [Request] {
        let marker = "/packfs-log-marker-\(UUID().uuidString)"
        _ = try Command.run("/usr/bin/curl", ["-s", "-o", "/dev/null", url(marker)], timeout: 30)
        var requests: [Request] = []
        let found = try eventually(timeout: 30) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            requests = try text.split(separator: "\n").map { line in
                let entry = try JSONValue.parsing(Data(line.utf8))
                return Request(uri: entry["uri"]?.string ?? "", status: Int(entry["status"]?.number ?? 0))
            }
            return requests.contains { $0.uri == marker }
        }
        guard found else { throw TestServer.Failure.startFailed("the marker request never reached the access log") }
        return requests.filter { $0.uri != marker }
    }

    public func stop() { Self.stop(process) }

    /// SIGTERM, then SIGKILL after 5 s; bounded, so a stuck server cannot hang the run.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        if !eventually(timeout: 5, { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
            _ = eventually(timeout: 2) { !process.isRunning }
        }
    }

    /// The browser side's parts, or a skip (a failure in CI): nginx, Chromium and its driver, the
    /// selenium module, and MapLibre GL JS from the maplibre package (its script and stylesheet).
    public static func requireBrowser(file: StaticString = #filePath, line: UInt = #line) throws -> [URL] {
        var missing = ["/usr/sbin/nginx", "/usr/bin/chromium", "/usr/bin/chromedriver"].filter {
            !FileManager.default.isExecutableFile(atPath: $0)
        }
        // find_spec locates the package without running it (its import logs warnings).
        let probe = try Command.run("/usr/bin/env", ["python3", "-c", """
            import importlib.util, os
            assert importlib.util.find_spec("selenium"), "selenium"
            spec = importlib.util.find_spec("maplibre")
            assert spec, "maplibre"
            print(os.path.join(os.path.dirname(spec.origin), "srcjs"))
            """], timeout: 60)
        let srcjs = URL(fileURLWithPath: probe.text.trimmingCharacters(in: .whitespacesAndNewlines))
        let scripts = ["maplibre-gl.js", "maplibre-gl.css"].map { srcjs.appendingPathComponent($0) }
        if probe.status != 0 || !scripts.allSatisfy({ FileManager.default.fileExists(atPath: $0.path) }) {
            missing.append("python3 modules selenium and maplibre (\(probe.text.suffix(200)))")
        }
        guard !missing.isEmpty else { return scripts }
        let message = "the browser test needs \(missing.joined(separator: ", ")) (scripts/setup.sh installs them)"
        if isCI { XCTFail(message, file: file, line: line) }
        throw XCTSkip(message)
    }
}
