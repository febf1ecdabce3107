import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs export DB NAME s3://bucket/key.pmtiles` against moto's S3 server with its signature
/// checks on: multipart uploads read back byte for byte against local exports of the same pack,
/// parts retried on their own, an upload that cannot finish aborted, a server that dies
/// mid-upload, and the usage errors found before anything is exported.
final class S3ExportTests: CLITestCase {
    private struct Fixture {
        var directory: TemporaryDirectory
        var db: String
        var s3: S3Server
    }

    private static let fixture = ClassFixture<Fixture>()

    /// The Helsinki pack (three tiled sources), downloaded once from nginx, and one moto server.
    override class func setUp() {
        super.setUp()
        fixture.setUp {
            let directory = try classDirectory()
            let nginx = try TestServer.nginx()
            defer { nginx.stop() }
            let region = directory.path("region.json")
            try """
                {"style": "\(nginx.baseURL)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}
                """.write(toFile: region, atomically: true, encoding: .utf8)
            let db = directory.path("packs.db")
            let download = try Packfs.run(["download", db, "helsinki", region])
            guard download.status == 0 else { throw TestServer.Failure.startFailed("download: \(download.text)") }
            return Fixture(directory: directory, db: db, s3: try S3Server.moto())
        }
    }

    override class func tearDown() {
        fixture.tearDown { $0.s3.server.stop() }
        super.tearDown()
    }

    /// Small parts, so that these small files go in many; short retry delays.
    private let smallParts = ["--minimum-part-size", "1K", "--part-size", "16K", "--retry-delay", "0.01", "--retries", "3"]

    private func export(_ arguments: [String], environment: [String: String]) throws -> Outcome {
        try Command.runApart(Packfs.path, ["export", try Self.fixture.value().db, "helsinki"] + arguments, environment: environment)
    }

    /// The openmaptiles source exported to `key` in small parts through an s3front.py with `options`
    /// in front of moto (spooling under `temp`), and the requests that reached the front.
    private func exportThroughFront(_ key: String, _ options: [String]) throws -> (Outcome, [AccessLogEntry]) {
        let s3 = try Self.fixture.value().s3
        let front = try s3.front(options)
        defer { front.stop() }
        var environment = s3.environment
        environment["AWS_ENDPOINT_URL"] = front.baseURL
        environment["TMPDIR"] = temp.url.path
        let arguments = ["s3://packs/\(key)", "--source", "openmaptiles"] + smallParts
        let outcome = try export(arguments, environment: environment)
        return (outcome, try front.arrivals())
    }

    /// A file per tiled source, each in several parts, each object the bytes of a local export of
    /// the same pack, typed for what it is; nothing left in progress, the staging directory gone.
    func testPacksUploadInPartsAndReadBackByteForByte() throws {
        let (db, s3) = try (Self.fixture.value().db, Self.fixture.value().s3)
        XCTAssertEqual(try packfs("export", db, "helsinki", temp.path("local.pmtiles")).status, 0)
        XCTAssertEqual(try packfs("export", db, "helsinki", temp.path("local.mbtiles"), "--source", "openmaptiles").status, 0)
        let staging = temp.path("staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        let started = Date()
        let pmtiles = try export(["s3://packs/round trip/helsinki.pmtiles", "--staging", staging] + smallParts, environment: s3.environment)
        XCTAssertEqual(pmtiles.status, 0, pmtiles.stderr)
        let mbtiles = try export(["s3://packs/round trip/omt.mbtiles", "--source", "openmaptiles", "--json"] + smallParts,
                                 environment: s3.environment)
        XCTAssertEqual(mbtiles.status, 0, mbtiles.stderr)
        print("S3ExportTests: two exports uploaded in \(String(format: "%.2f", Date().timeIntervalSince(started))) s:\n" + pmtiles.stdout)
        for source in ["openmaptiles", "land", "relief"] {
            let key = "round trip/helsinki.\(source).pmtiles"
            let local = try Data(contentsOf: temp.url.appendingPathComponent("local.\(source).pmtiles"))
            XCTAssertEqual(try s3.object(key), local, key)
            XCTAssertEqual(try s3.contentType(key), "application/vnd.pmtiles")
            XCTAssertTrue(pmtiles.stdout.contains("s3://packs/\(key): source \"\(source)\""), pmtiles.stdout)
        }
        let parts = try XCTUnwrap(pmtiles.stdout.split(separator: "\n").first { $0.hasPrefix("uploaded s3://packs/round trip/helsinki.openmaptiles") })
        XCTAssertFalse(parts.contains(" in 1 part "), "several parts: \(parts)")
        XCTAssertEqual(try s3.object("round trip/omt.mbtiles"), try Data(contentsOf: temp.url.appendingPathComponent("local.mbtiles")))
        XCTAssertEqual(try s3.contentType("round trip/omt.mbtiles"), "application/vnd.sqlite3")
        let json = try XCTUnwrap(JSONValue.parse(Data(mbtiles.stdout.utf8)), mbtiles.stdout)
        XCTAssertEqual(json["files"]?.array?.first?["path"], .string("s3://packs/round trip/omt.mbtiles"))
        XCTAssertGreaterThan(json["uploads"]?.array?.first?["parts"]?.number ?? 0, 1)
        XCTAssertEqual(Set(try s3.keys().filter { $0.hasPrefix("round trip/") }), [
            "round trip/helsinki.openmaptiles.pmtiles", "round trip/helsinki.land.pmtiles", "round trip/helsinki.relief.pmtiles",
            "round trip/omt.mbtiles",
        ])
        XCTAssertEqual(try s3.uploadsInProgress().filter { $0.hasPrefix("round trip/") }, [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: staging), [], "the staging directory is gone")
    }

    /// The round trip of a fleet: a pack exported to a public bucket comes back as a `pmtiles://`
    /// source of another pack (read anonymously with range requests), tile for tile. (A moto of
    /// its own: with signatures checked, moto cannot serve anonymous reads.)
    func testAnUploadedArchiveDownloadsBackAsAPMTilesSource() throws {
        let db = try Self.fixture.value().db
        let s3 = try S3Server.moto(checksSignatures: false)
        let uploaded = try export(["s3://packs/readback/omt.pmtiles", "--source", "openmaptiles"] + smallParts, environment: s3.environment)
        XCTAssertEqual(uploaded.status, 0, uploaded.stderr)
        try s3.makePublic("readback/omt.pmtiles")
        let archive = "pmtiles://\(s3.endpoint)/packs/readback/omt.pmtiles"
        let nginx = try TestServer.nginx()
        defer { nginx.stop() }
        let root = try XCTUnwrap(nginx.servedRoot)
        try """
            {"version": 8, "sources": {"omt": {"type": "vector", "url": "\(archive)"}}, "layers": []}
            """.write(to: root.appendingPathComponent("styles/readback.json"), atomically: true, encoding: .utf8)
        let region = temp.path("readback.json")
        try """
            {"style": "\(nginx.baseURL)/styles/readback.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        let copy = temp.path("copy.db")
        // The style on nginx names the archive on the S3 server, another loopback service: allowed
        // by name, as a device's owner allows a bucket on the local network.
        let download = try packfs("download", copy, "readback", region, "--allow-host", "127.0.0.1")
        XCTAssertEqual(download.status, 0, download.stdout + download.stderr)

        let original = try OfflineDatabase.open(path: db, mode: .readOnly)
        let copied = try OfflineDatabase.open(path: copy, mode: .readOnly)
        let template = try XCTUnwrap(original.packTileSets(of: original.pack(named: "helsinki").id)
            .first { $0.urlTemplate.contains("/tiles/helsinki.json") || $0.urlTemplate.contains("/helsinki/") })
        let keys = try original.tileKeys(of: original.pack(named: "helsinki").id).filter { $0.urlTemplate == template.urlTemplate }
        let readBack = try copied.tileKeys(of: copied.pack(named: "readback").id)
        // An export leaves empty tiles out (here zooms 0-4): the archive's zooms start after them.
        let nonEmpty = try keys.filter { try original.tile($0)?.data.decoded()?.isEmpty == false }
        XCTAssertEqual(readBack.count, nonEmpty.count)
        XCTAssertGreaterThan(nonEmpty.count, 10)
        XCTAssertTrue(readBack.allSatisfy { $0.urlTemplate == archive + "/{z}/{x}/{y}" })
        for key in keys {
            var back = key
            back.urlTemplate = archive + "/{z}/{x}/{y}"
            let expected = try original.tile(key)?.data.decoded().flatMap { $0.isEmpty ? nil : $0 }
            XCTAssertEqual(try copied.tile(back)?.data.decoded(), expected, "\(key.z)/\(key.x)/\(key.y)")
        }
    }

    /// A part that fails twice (500, then 503) is sent again on its own: the parts before it once
    /// each, the object whole.
    func testAFailingPartIsRetriedOnItsOwn() throws {
        let s3 = try Self.fixture.value().s3
        let (outcome, arrivals) = try exportThroughFront("retried/omt.pmtiles", ["--script", "partNumber=2&=500,503"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("2 requests retried"), outcome.stdout)
        XCTAssertEqual(try packfs("export", try Self.fixture.value().db, "helsinki", temp.path("omt.pmtiles"), "--source", "openmaptiles").status, 0)
        XCTAssertEqual(try s3.object("retried/omt.pmtiles"), try Data(contentsOf: temp.url.appendingPathComponent("omt.pmtiles")))
        let parts = arrivals.map(\.uri).filter { $0.contains("partNumber=") }
        XCTAssertEqual(parts.filter { $0.contains("partNumber=1&") }.count, 1, "\(parts)")
        XCTAssertEqual(parts.filter { $0.contains("partNumber=2&") }.count, 3, "\(parts)")
    }

    /// A part that fails every time: after its attempts the upload is aborted, and neither an
    /// object nor an upload in progress remains; one line says which part failed and why.
    func testAPartThatKeepsFailingAbortsTheUpload() throws {
        let s3 = try Self.fixture.value().s3
        let (outcome, arrivals) = try exportThroughFront("failed/omt.pmtiles", ["--fail", "partNumber=2&=500"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.hasPrefix("packfs: upload of s3://packs/failed/omt.pmtiles failed: part 2 of "), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("HTTP 500 InternalError: injected by s3front.py (after 3 attempts)"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the multipart upload was aborted, no object was written"), outcome.stderr)
        print("S3ExportTests: " + outcome.stderr)
        let requests = arrivals.map { "\($0.method) \($0.uri)" }
        XCTAssertEqual(requests.filter { $0.contains("partNumber=2&") }.count, 3, "\(requests)")
        XCTAssertFalse(requests.contains { $0.contains("partNumber=3&") }, "\(requests)")
        XCTAssertEqual(requests.filter { $0.hasPrefix("DELETE /packs/failed/omt.pmtiles?uploadId=") }.count, 1, "\(requests)")
        XCTAssertNil(try s3.object("failed/omt.pmtiles"))
        XCTAssertEqual(try s3.uploadsInProgress().filter { $0.hasPrefix("failed/") }, [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path), [], "no staging directory left")
    }

    /// Temporary credentials sign with their session token; a wrong secret or token is refused
    /// by S3 (moto checks every signature) before any part is sent, and the line says so.
    func testTemporaryCredentialsAndRefusedSignatures() throws {
        let s3 = try Self.fixture.value().s3
        let temporary = s3.environment.merging(s3.temporary) { $1 }
        let outcome = try export(["s3://packs/temporary/omt.pmtiles", "--source", "openmaptiles"] + smallParts, environment: temporary)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertNotNil(try s3.object("temporary/omt.pmtiles"))
        for (name, code) in [("AWS_SECRET_ACCESS_KEY", "SignatureDoesNotMatch"), ("AWS_SESSION_TOKEN", "InvalidToken")] {
            var environment = temporary
            environment[name] = "wrong"
            let refused = try export(["s3://packs/refused/omt.pmtiles", "--source", "openmaptiles"] + smallParts, environment: environment)
            XCTAssertEqual(refused.status, 1, name)
            XCTAssertTrue(refused.stderr.hasPrefix("packfs: upload of s3://packs/refused/omt.pmtiles failed: starting the multipart upload: HTTP 4"),
                          refused.stderr)
            XCTAssertTrue(refused.stderr.contains(code), refused.stderr)
            XCTAssertTrue(refused.stderr.hasSuffix("; nothing was written\n"), refused.stderr)
        }
        XCTAssertEqual(try s3.keys().filter { $0.hasPrefix("refused/") }, [])
    }

    /// The server dies (SIGKILL) while part 2 is on its way: the export fails with one line
    /// naming the part and the connection, says the abort could not be sent, and leaves no
    /// local file.
    func testTheServerDyingMidUploadFailsClearly() throws {
        let s3 = try S3Server.moto()
        let front = try s3.front(["--hold", "partNumber=2&"])
        defer { front.stop() }
        var environment = s3.environment
        environment["AWS_ENDPOINT_URL"] = front.baseURL
        environment["TMPDIR"] = temp.url.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Packfs.path)
        process.arguments = ["export", try Self.fixture.value().db, "helsinki", "s3://packs/killed/omt.pmtiles", "--source", "openmaptiles"]
            + smallParts
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        XCTAssertTrue(eventually(timeout: 60) { (try? front.arrivals())?.contains { $0.uri.contains("partNumber=2&") } ?? false },
                      "part 2 never arrived")
        front.kill()
        s3.server.kill()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(eventually(timeout: 30) { !process.isRunning }, "packfs still running")
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        print("S3ExportTests: " + stderr)
        XCTAssertEqual(stderr.filter { $0 == "\n" }.count, 1, stderr)
        XCTAssertTrue(stderr.hasPrefix("packfs: upload of s3://packs/killed/omt.pmtiles failed: part 2 of "), stderr)
        XCTAssertTrue(stderr.contains("(after 3 attempts)"), stderr)
        XCTAssertTrue(stderr.contains("the multipart upload could not be aborted"), stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path), [], "no staging directory left")
    }

    /// Bad usage is found before anything is exported or sent: exit 2, one line, nothing made.
    func testUsageErrorsComeFirst() throws {
        let db = try Self.fixture.value().db
        let environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_ENDPOINT_URL": "http://127.0.0.1:9",
                           "TMPDIR": temp.url.path]
        let cases: [([String], [String: String], String)] = [
            (["s3://packs/x.pmtiles"], ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""], "no credentials for S3"),
            (["s3://packs/x.pmtiles"], ["AWS_SECRET_ACCESS_KEY": ""], "AWS_SECRET_ACCESS_KEY"),
            (["s3://packs"], [:], "no key after the bucket"),
            (["s3:///x.pmtiles"], [:], "no bucket"),
            (["s3://packs/x.zip"], [:], "names a .pmtiles or .mbtiles object"),
            (["s3://packs/dir/"], [:], "names a .pmtiles or .mbtiles object"),
            (["s3://packs/x.pmtiles", "--part-size", "1M"], [:], "--part-size"),
            // It raises the part size: past 5G the part count overflowed (a trap, after the export).
            (["s3://packs/x.pmtiles", "--minimum-part-size", "9223372036854775807"], [:], "--minimum-part-size"),
            (["s3://packs/x.pmtiles", "--endpoint", "ftp://host"], [:], "is no http:// or https:// URL"),
            (["s3://packs/x.pmtiles", "--staging", temp.path("absent")], [:], "is no directory"),
            ([temp.path("x.pmtiles"), "--part-size", "8M"], [:], "--part-size applies to an s3:// OUT only"),
        ]
        for (arguments, changes, expected) in cases {
            let outcome = try Command.runApart(Packfs.path, ["export", db, "helsinki"] + arguments,
                                               environment: environment.merging(changes) { $1 })
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path), [], "nothing made")
    }
}
