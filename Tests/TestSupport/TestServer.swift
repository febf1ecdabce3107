import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One line of a test server's access log (nginx and the fault server write the same keys).
public struct AccessLogEntry: Equatable, Sendable {
    public var time: Double
    public var method: String
    public var uri: String
    /// 0 when the fault server answered nothing (a reset).
    public var status: Int
    public var ifNoneMatch: String
    public var acceptEncoding: String
    /// The connection's serial number: requests sharing it came over one kept-alive connection.
    public var connection: Int
    /// Fault server only: reset, truncate, 429, 500, ..., corrupt, slow; nil for a plain answer.
    public var fault: String?
    /// nginx only: "HTTP/1.1" or "HTTP/2.0".
    public var httpProtocol: String?
    /// nginx only: the request's Range and If-Match headers ("" when none), and the body bytes sent.
    public var range = ""
    public var ifMatch = ""
    public var bytes = 0
}

/// A real HTTP server process on a free 127.0.0.1 port, serving Fixtures/world with `{base}`
/// replaced by `baseURL`.
///
/// Start one per test in `setUp` and call `stop()` in `tearDown` (also runs on failure; `deinit`
/// stops it too, and the server exits by itself if the test process dies), or one per class
/// (`ClassFixture`) when the class's tests only read from it. Both servers are started from the
/// scripts in Tests/servers.
public final class TestServer: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case startFailed(String)
        public var description: String {
            switch self { case .startFailed(let why): return "test server did not start: \(why)" }
        }
    }

    public let baseURL: String
    public let port: Int
    public let directory: TemporaryDirectory
    public let accessLogPath: String
    /// Fault server only: a line per request as it arrives (the access log's come as answers leave).
    public var arrivalLogPath: String { directory.path("arrivals.log") }
    /// Fault server only: files written under this folder are served instead of the world's of
    /// the same path (`{base}` replaced in .json files as in the world), from the next request on.
    public var overlayPath: String { directory.path("overlay") }
    /// nginx only: the copy of the world it serves, `{base}` replaced: the bytes each path serves
    /// (before transfer compression). A test may change a file there.
    public let servedRoot: URL?
    private let process: Process

    /// With `tls`: the self-signed certificate to trust (as a CA file).
    public var certificatePath: String? {
        baseURL.hasPrefix("https:") ? directory.path("cert.pem") : nil
    }

    init(process: Process, port: Int, directory: TemporaryDirectory, accessLogPath: String, servedRoot: URL?,
                 scheme: String = "http") {
        self.process = process
        self.port = port
        self.baseURL = "\(scheme)://127.0.0.1:\(port)"
        self.directory = directory
        self.accessLogPath = accessLogPath
        self.servedRoot = servedRoot
    }

    deinit { stop() }

    /// nginx (/usr/sbin/nginx) via Tests/servers/nginx-world.sh. `pregzip` adds .gz siblings that
    /// gzip_static serves as they are; `tls` serves HTTPS and HTTP/2 with a self-signed certificate
    /// (`certificatePath`). `world` replaces Fixtures/world (it must hold styles/bright.json and
    /// tiles/helsinki.json).
    public static func nginx(pregzip: Bool = false, tls: Bool = false, workers: Int = 1,
                             world: URL = ProjectPaths.world) throws -> TestServer {
        let directory = try TemporaryDirectory(prefix: "packfs-nginx")
        var lastError = "no attempt"
        // Picking a free port and binding it are two steps; another process may win the race.
        for _ in 0..<5 {
            let port = try LoopbackPort.free()
            var arguments = ["--dir", directory.url.path, "--port", "\(port)", "--workers", "\(workers)",
                             "--world", world.path, "--die-with-parent"]
            if pregzip { arguments.append("--pregzip") }
            if tls { arguments.append("--tls") }
            let process = try launch(ProjectPaths.servers.appendingPathComponent("nginx-world.sh").path,
                                     arguments, output: directory.path("server.out"))
            if waitUntilListening(port: port, process: process, timeout: 60) {
                return TestServer(process: process, port: port, directory: directory,
                                  accessLogPath: directory.path("access.log"),
                                  servedRoot: directory.url.appendingPathComponent("world"), scheme: tls ? "https" : "http")
            }
            terminate(process)
            lastError = (try? String(contentsOfFile: directory.path("server.out"), encoding: .utf8)) ?? "exited"
        }
        directory.remove()
        throw Failure.startFailed("nginx: \(lastError)")
    }

    /// Tests/servers/faultserver.py with extra `arguments` (rates, --gzip, --fail-path...; see its
    /// header) on `port`, or (0) one the OS picks. A server stopped and started again on the same
    /// port is an origin that went away for a while.
    public static func faultServer(_ arguments: [String] = [], port: Int = 0) throws -> TestServer {
        let directory = try TemporaryDirectory(prefix: "packfs-faults")
        let portFile = directory.path("port")
        try FileManager.default.createDirectory(atPath: directory.path("overlay"), withIntermediateDirectories: true)
        let script = ProjectPaths.servers.appendingPathComponent("faultserver.py").path
        let process = try launch("/usr/bin/env", ["python3", script, "--root", ProjectPaths.world.path,
                                                   "--port-file", portFile, "--log", directory.path("access.log"),
                                                   "--arrival-log", directory.path("arrivals.log"),
                                                   "--watch-pid", "\(getpid())", "--port", "\(port)",
                                                   "--overlay", directory.path("overlay")] + arguments,
                                 output: directory.path("server.out"))
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, process.isRunning {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
               waitUntilListening(port: port, process: process, timeout: 5) {
                return TestServer(process: process, port: port, directory: directory,
                                  accessLogPath: directory.path("access.log"), servedRoot: nil)
            }
            usleep(20_000)
        }
        terminate(process)
        let output = (try? String(contentsOfFile: directory.path("server.out"), encoding: .utf8)) ?? ""
        directory.remove()
        throw Failure.startFailed("faultserver.py: \(output)")
    }

    public func url(_ path: String) -> String { baseURL + path }

    /// Fault server only: requests whose path starts with `prefix` arrive and wait, unanswered,
    /// until `release()` (see faultserver.py).
    public func hold(_ prefix: String) throws {
        try control("/_control/hold?prefix=" + (prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? prefix))
    }

    /// Fault server only: every held request is answered.
    public func release() throws { try control("/_control/release") }

    private func control(_ path: String) throws {
        let curl = try Command.run("/usr/bin/curl", ["-sf", "-o", "/dev/null", url(path)])
        guard curl.status == 0 else { throw Failure.startFailed("\(path): \(curl.text)") }
    }

    /// The bytes `path` serves, `{base}` replaced: what a client must end up with.
    public func expectedContent(_ path: String) throws -> Data {
        let relative = (path.removingPercentEncoding ?? path).trimmingCharacters(in: ["/"])
        if let servedRoot { return try Data(contentsOf: servedRoot.appendingPathComponent(relative)) }
        let overlaid = URL(fileURLWithPath: overlayPath).appendingPathComponent(relative)
        let file = FileManager.default.fileExists(atPath: overlaid.path) ? overlaid : ProjectPaths.world.appendingPathComponent(relative)
        let data = try Data(contentsOf: file)
        guard path.hasSuffix(".json") else { return data }
        return Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "{base}", with: baseURL).utf8)
    }

    /// The access log so far. nginx writes each line when the response is done; to count the
    /// last requests, wait for them (`waitForLog`) or for the log to settle (`settledAccessLog`).
    public func accessLog() throws -> [AccessLogEntry] {
        try Self.readLog(accessLogPath)
    }

    /// Fault server only: every request that arrived so far, answered or not (time, method, uri
    /// and connection set; status 0).
    public func arrivals() throws -> [AccessLogEntry] {
        try Self.readLog(arrivalLogPath)
    }

    /// The access log once every request that reached the server so far has its line: the event
    /// that proves a client sent nothing more, where a test would otherwise wait a fixed time.
    /// The fault server logs every request it read, so its log has settled once each arrival is
    /// in it. nginx (one worker, the default) handles its connections one event at a time and
    /// logs an answer as it completes, so once a marker request sent now is logged, so is every
    /// answer a client already had; the marker's line is left out of `accessLog()`.
    public func settledAccessLog(timeout: TimeInterval = 30) throws -> [AccessLogEntry] {
        if servedRoot == nil {
            let arrived = try arrivals().count
            _ = try eventually(timeout: timeout) { try accessLog().count >= arrived }
            return try accessLog()
        }
        let marker = Self.markerPrefix + UUID().uuidString
        _ = try Command.run("/usr/bin/curl", ["-sk", "-o", "/dev/null", url(marker)], timeout: timeout)
        _ = eventually(timeout: timeout) {
            ((try? String(contentsOfFile: accessLogPath, encoding: .utf8)) ?? "").contains(marker)
        }
        return try accessLog()
    }

    /// The path of `settledAccessLog`'s marker requests (not in the fixture world: a 404).
    private static let markerPrefix = "/_settled/"

    private static func readLog(_ path: String) throws -> [AccessLogEntry] {
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        // A line without its newline yet is still being written (seen once: a poll read half of
        // nginx's last line): it is not an entry until it ends.
        if let end = text.lastIndex(of: "\n") { text = String(text[...end]) } else { text = "" }
        return try text.split(separator: "\n").filter { !$0.contains(markerPrefix) }.map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure.startFailed("unreadable access log line: \(line)")
            }
            return AccessLogEntry(
                time: (object["time"] as? NSNumber)?.doubleValue ?? 0,
                method: object["method"] as? String ?? "",
                uri: object["uri"] as? String ?? "",
                status: (object["status"] as? NSNumber)?.intValue ?? 0,
                ifNoneMatch: object["if_none_match"] as? String ?? "",
                acceptEncoding: object["accept_encoding"] as? String ?? "",
                connection: (object["connection"] as? NSNumber)?.intValue ?? 0,
                fault: object["fault"] as? String,
                httpProtocol: object["protocol"] as? String,
                range: object["range"] as? String ?? "",
                ifMatch: object["if_match"] as? String ?? "",
                bytes: (object["bytes"] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Polls the access log until it holds at least `count` lines or `timeout` passes.
    @discardableResult
    public func waitForLog(count: Int, timeout: TimeInterval = 5) throws -> [AccessLogEntry] {
        var entries: [AccessLogEntry] = []
        _ = try eventually(timeout: timeout) {
            entries = try accessLog()
            return entries.count >= count
        }
        return entries
    }

    /// Kills the server at once (SIGKILL: its connections end without a goodbye, as when a
    /// machine dies) and keeps its directory (the logs). Idempotent.
    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. Idempotent.
    public func stop() {
        Self.terminate(process)
        directory.remove()
    }

    static func launch(_ executable: String, _ arguments: [String], output: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: output)
        try process.run()
        return process
    }

    static func waitUntilListening(port: Int, process: Process, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, process.isRunning {
            if LoopbackPort.accepts(port) { return true }
            usleep(20_000)
        }
        return false
    }

    static func terminate(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        // Bounded: an unbounded waitUntilExit() would turn a stuck server into a hung test run.
        let killDeadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < killDeadline { usleep(10_000) }
    }
}

/// Loopback TCP helpers for starting servers.
public enum LoopbackPort {
    /// A port the OS considers free right now (bound to 0, read back, released).
    public static func free() throws -> Int {
        try withSocket { fd, address in
            var address = address
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw TestServer.Failure.startFailed("no free port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` (no request is sent, so
    /// nothing appears in an access log).
    public static func accepts(_ port: Int) -> Bool {
        (try? withSocket { fd, address in
            var address = address
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }) ?? false
    }

    private static func withSocket<T>(_ body: (Int32, sockaddr_in) throws -> T) throws -> T {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServer.Failure.startFailed("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return try body(fd, address)
    }
}

extension ProjectPaths {
    /// Tests/servers: the nginx script and the fault server.
    public static let servers = root.appendingPathComponent("Tests").appendingPathComponent("servers")
}
