import Foundation
import PackStore
import TestSupport
import XCTest

/// No secret reaches a text others read (docs/design.md §2, "Secrets"): a token given in every
/// way the commands take one, failures provoked so that errors name the URLs carrying them, then
/// every file of the mount, every command's output and the daemon's log searched for each.
final class SecretScanMountTests: DaemonMountTestCase {
    private static let accessToken = "pk.sEcReTaCcEsS0001"
    private static let styleKey = "StyleKeySecret0002"
    private static let apiKey = "ApiKeySecret0003"
    private static let tileToken = "TileTokenSecret0004"
    private static let password = "PassWordSecret0005"
    private static let user = "UserNameSecret0006"
    private static let secrets = [accessToken, styleKey, apiKey, tileToken, password, user]

    /// The fault server: a style whose TileJSON URL and tile template carry keys, a tile of it
    /// answering 403 (the pack's error names its URL), and 403 for the expanded mapbox style.
    override class func makeServer() throws -> TestServer? {
        let server = try TestServer.faultServer([
            "--fail-path", "/keyed/0/0/0.pbf=403", "--fail-path", "/mapbox/styles/v1/test/bright=403",
            "--fail-path", "/forbidden/patch.mbtiles=403",
        ])
        let overlay = URL(fileURLWithPath: server.overlayPath)
        try FileManager.default.createDirectory(at: overlay.appendingPathComponent("styles"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: overlay.appendingPathComponent("tiles"), withIntermediateDirectories: true)
        try #"""
            {"version":8,"sources":{"t":{"type":"vector","url":"{base}/tiles/keyed.json?api_key=\#(apiKey)"}},
             "layers":[{"id":"w","type":"fill","source":"t","source-layer":"water"}]}
            """#.write(to: overlay.appendingPathComponent("styles/keyed.json"), atomically: true, encoding: .utf8)
        try #"""
            {"tilejson":"2.2.0","maxzoom":14,"tiles":["{base}/keyed/{z}/{x}/{y}.pbf?token=\#(tileToken)"]}
            """#.write(to: overlay.appendingPathComponent("tiles/keyed.json"), atomically: true, encoding: .utf8)
        return server
    }

    /// `--access-token` for `mapbox://` URLs, requested from the fault server in place of Mapbox.
    private var mapboxOptions: [String] {
        ["--access-token", Self.accessToken, "--rewrite", "https://api.mapbox.com/=\(server.url("/mapbox/"))"]
    }

    private func regions() throws -> (mapbox: String, keyed: String, clear: String) {
        (try regionFile("mapbox.json", style: "mapbox://styles/test/bright", maxZoom: 1),
         try regionFile("keyed.json", style: server.url("/styles/keyed.json?key=\(Self.styleKey)"), maxZoom: 1),
         try regionFile("clear.json", style: server.url("/styles/bright.json?access_token=\(Self.accessToken)"), maxZoom: 1))
    }

    func testNoFileOfTheMountNorTheLogShowsASecret() throws {
        let log = temp.path("daemon.log")
        try mountPackFS(["--log", log, "--web-base", "http://127.0.0.1:9/packfs"] + mapboxOptions)
        let (mapbox, keyed, clear) = try regions()
        try copyRegion(mapbox, to: "mapbox")
        try copyRegion(keyed, to: "keyed")
        try copyRegion(clear, to: "clear")
        // A refused region file: its .error file names the URL.
        let refused = try Command.run("/bin/sh", ["-c", "printf '%s' \"$1\" > \"$2\"", "sh",
            #"{"style": "ftp://\#(Self.user):\#(Self.password)@127.0.0.1/s.json?key=\#(Self.styleKey)", "bounds": [1, 2, 3, 4]}"#,
            packs + "/refused.region"])
        XCTAssertNotEqual(refused.status, 0, "the write is refused")
        waitForState("mapbox", ["error"])
        waitForState("keyed", ["error"])
        waitForState("clear")
        XCTAssertTrue(progress("mapbox")?["error"]?.string?.contains("access_token=***") == true, "\(String(describing: progress("mapbox")))")
        XCTAssertTrue(progress("keyed")?["error"]?.string?.contains("token=***") == true, "\(String(describing: progress("keyed")))")
        let read = try readEveryFile(under: mount.path)
        XCTAssertGreaterThan(read.count, 20, "the walk read the packs' files")
        XCTAssertTrue(read.keys.contains(packs + "/refused.error"), read.keys.sorted().description)
        assertNoSecret(in: read)
        assertNoSecret(in: [log: try String(contentsOfFile: log, encoding: .utf8)])
        // The daemon's command line, which every user reads (ps): the token went by environment.
        let daemons = try commandLines(naming: mount.path)
        XCTAssertEqual(daemons.count, 1, "\(daemons)")
        assertNoSecret(in: daemons)
        XCTAssertTrue(try String(contentsOfFile: log, encoding: .utf8).contains("***"), "the log named the failures, redacted")
        unmountPackFS()
        assertNoSecret(in: [log: try String(contentsOfFile: log, encoding: .utf8)])
    }

    func testNoCommandOutputShowsASecret() throws {
        let (mapbox, keyed, clear) = try regions()
        let db = temp.path("commands.db")
        var outputs: [String: String] = [:]
        func run(_ arguments: [String], environment: [String: String] = [:]) throws {
            let outcome = try Command.runApart(Packfs.path, arguments, environment: environment)
            outputs[arguments.joined(separator: " ")] = outcome.stdout + outcome.stderr
        }
        try run(["estimate", mapbox] + mapboxOptions)
        try run(["download", db, "mapbox", mapbox] + mapboxOptions)
        try run(["download", db, "keyed", keyed])
        try run(["download", db, "clear", clear])
        try run(["refresh", db, "keyed"])
        try run(["list", db])
        try run(["list", db, "--json"])
        for pack in ["mapbox", "keyed", "clear"] { try run(["status", db, pack]) }
        try run(["status", db, "keyed", "--json"])
        try run(["patch", db, "clear", "http://\(Self.user):\(Self.password)@127.0.0.1:\(server.port)/forbidden/patch.mbtiles"])
        let file = temp.path("preload.json")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: file))
        try run(["cache", db, "preload", server.url("/x.json?access_token=\(Self.accessToken)")
            .replacing("http://", with: "http://\(Self.user):\(Self.password)@"), file])
        XCTAssertEqual(outputs.count, 13)
        XCTAssertTrue(outputs.values.contains { $0.contains("HTTP 403") && $0.contains("access_token=***") }, "\(outputs)")
        XCTAssertTrue(outputs.values.contains { $0.contains("://***@127.0.0.1") }, "\(outputs)")
        assertNoSecret(in: outputs)
        try assertS3ExportShowsNoCredentials(db)
    }

    /// `packfs export` to S3 (moto, signatures checked): with the right credentials, a wrong
    /// secret and a wrong session token; no output shows a secret or a token.
    private func assertS3ExportShowsNoCredentials(_ db: String) throws {
        let s3 = try S3Server.moto()
        defer { s3.server.stop() }
        let wrongSecret = "WrongSecretKey0007abcdef"
        let wrongToken = "WrongSessionToken0008abcdef"
        let trials: [(String, [String: String])] = [
            ("right", s3.environment),
            ("secret", s3.environment.merging(["AWS_SECRET_ACCESS_KEY": wrongSecret]) { $1 }),
            ("token", s3.environment.merging(s3.temporary) { $1 }.merging(["AWS_SESSION_TOKEN": wrongToken]) { $1 }),
        ]
        var outputs: [String: String] = [:]
        for (name, environment) in trials {
            let outcome = try Command.runApart(
                Packfs.path, ["export", db, "clear", "s3://\(s3.bucket)/\(name).pmtiles", "--retries", "1"], environment: environment)
            outputs[name] = outcome.stdout + outcome.stderr
            XCTAssertEqual(outcome.status == 0, name == "right", "\(name): \(outcome.stderr)")
        }
        let secrets = [s3.secretAccessKey, wrongSecret, wrongToken] + [s3.temporary["AWS_SECRET_ACCESS_KEY"]].compactMap { $0 }
        assertNoSecret(in: outputs, secrets: secrets)
    }

    /// The command lines (arguments joined by spaces) of the processes with `word` among them.
    private func commandLines(naming word: String) throws -> [String: String] {
        var lines: [String: String] = [:]
        for pid in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int(pid) != nil {
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains(word) { lines["process \(pid)"] = arguments.joined(separator: " ") }
        }
        return lines
    }

    /// Every regular file under `root`, read whole, by path; region files (the owner's own text,
    /// exact) are checked to be the owner's alone instead of read.
    private func readEveryFile(under root: String) throws -> [String: String] {
        var texts: [String: String] = [:]
        let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: root))
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if path.hasSuffix(".region") {
                XCTAssertEqual(info.st_mode & 0o777, 0o600, path)
                continue
            }
            texts[path] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        }
        return texts
    }

    private func assertNoSecret(in texts: [String: String], secrets: [String] = secrets,
                                file: StaticString = #filePath, line: UInt = #line) {
        for (place, text) in texts {
            for secret in secrets where text.contains(secret) {
                XCTFail("\(place) shows \(secret): \(text.prefix(2000))", file: file, line: line)
            }
        }
    }
}
