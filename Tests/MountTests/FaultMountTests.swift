import Foundation
import PackStore
import TestSupport
import XCTest

/// Faulty origins seen through a real `packfs mount` daemon (--stall-timeout 1): while pack `b`
/// downloads through every fault kind at once (its TileJSON stalls three times first) and pack
/// `c` ends in error on a redirect to file://, pack `a`, downloaded before, is read whole again
/// and again with the origin's bytes; `b` then completes with every file equal to `a`'s (both
/// origins serve the same world), and `c` says why it stopped.
final class FaultMountTests: DaemonMountTestCase {
    var clean: TestServer!
    var faulty: TestServer!
    var redirecting: TestServer!
    static let kinds = ["500", "502", "503", "429", "reset", "truncate", "length", "corrupt", "slow", "drip", "hang", "stall"]

    /// Three origins of its own.
    override class func makeServer() throws -> TestServer? { nil }

    override func setUpWithError() throws {
        try super.setUpWithError()
        clean = try TestServer.faultServer(["--gzip"])
        faulty = try TestServer.faultServer(["--gzip", "--seed", "9", "--retry-after", "1", "--slow-seconds", "0.2",
                                             "--drip-seconds", "0.5", "--script", "/tiles/helsinki.json=stall,stall,stall"]
                                            + Self.kinds.flatMap { ["--rate-\($0)", "0.02"] })
        redirecting = try TestServer.faultServer(["--gzip", "--redirect", "/sprites/bright@2x.png=file:///etc/passwd"])
    }

    override func tearDown() {
        super.tearDown()
        [clean, faulty, redirecting].forEach { $0?.stop() }
    }

    private func region(_ server: TestServer) throws -> String {
        try regionFile("region-\(server.port).json", style: server.url("/styles/bright.json"))
    }

    /// The files of pack `name` whose bytes come from the origin as they are (not style.json,
    /// TileJSON, progress.json or coverage.geojson, which the mount makes), by path inside the pack.
    private func originFiles(_ name: String) throws -> [String] {
        let root = "\(packs)/\(name)"
        return try FileManager.default.subpathsOfDirectory(atPath: root).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
                && !["style.json", "progress.json", "coverage.geojson", "tiles.json"].contains((path as NSString).lastPathComponent)
        }.sorted()
    }

    /// The origin path of a tile of the primary source, a glyph range or a sprite file.
    private func originPath(_ path: String) -> String? {
        if path.range(of: #"^\d+/\d+/\d+\.pbf$"#, options: .regularExpression) != nil { return "/tiles/helsinki/" + path }
        if path.hasPrefix("glyphs/") { return "/fonts/" + path.dropFirst("glyphs/".count) }
        if path.hasPrefix("sprites/default") { return "/sprites/bright" + path.dropFirst("sprites/default".count) }
        return nil
    }

    func testTheDaemonServesOnePackWhileAnotherDownloadsThroughFaults() throws {
        let download = try packfs(["download", db, "a", try region(clean)])
        XCTAssertEqual(download.status, 0, download.text)
        try mountPackFS(["--stall-timeout", "1"])
        let files = try originFiles("a")
        XCTAssertEqual(files.filter { originPath($0) != nil }.count, 19 + 291 + 4)
        _ = try Command.run("/bin/cp", [try region(faulty), packs + "/b.region"])
        _ = try Command.run("/bin/cp", [try region(redirecting), packs + "/c.region"])

        var passesWhileActive = 0
        let deadline = Date().addingTimeInterval(180)
        while progress("b")?["state"] != .string("complete"), Date() < deadline {
            let before = progress("b")?["state"]
            for path in files {
                let served = FileManager.default.contents(atPath: "\(packs)/a/\(path)")
                let origin = try originPath(path).map { try clean.expectedContent($0) }
                XCTAssertNotNil(served, path)
                if let origin { XCTAssertEqual(served, origin, path) }
            }
            if before == .string("active"), progress("b")?["state"] == .string("active") { passesWhileActive += 1 }
            guard progress("b")?["state"] != .string("error") else { break }
        }
        print("pack a read whole \(passesWhileActive) times while b downloaded through faults")
        XCTAssertGreaterThan(passesWhileActive, 0, "pack a read whole while b was downloading")

        // Waited for, not read once: the run rewrites the pack's estimate just after `complete`,
        // and a read of progress.json between its size and its bytes can come short (see the
        // closing note of issue 20's stop: live files under stateless opens).
        waitForState("b", timeout: 30)
        XCTAssertEqual(try originFiles("b"), files)
        for path in files {
            XCTAssertEqual(FileManager.default.contents(atPath: "\(packs)/b/\(path)"),
                           FileManager.default.contents(atPath: "\(packs)/a/\(path)"), path)
        }
        let injected = Set(try faulty.accessLog().compactMap(\.fault))
        XCTAssertTrue(injected.isSuperset(of: ["stall", "hang", "reset", "429"]), "\(injected.sorted())")

        XCTAssertTrue(eventually { self.progress("c")?["state"] == .string("error") }, "c ends in error")
        let error = progress("c")?["error"]?.string ?? ""
        XCTAssertTrue(error.contains("refused redirect from \(redirecting.url("/sprites/bright@2x.png")) to file:///etc/passwd"), error)
        XCTAssertEqual(FileManager.default.contents(atPath: "\(packs)/a/14/9327/4742.pbf"),
                       try clean.expectedContent("/tiles/helsinki/14/9327/4742.pbf"), "still serving")
    }
}
