import Foundation
import PackStore
import TestSupport
import XCTest

/// `rm` and the unmount never wait on the network: a `packfs mount` daemon downloading from an
/// origin that sits 30 s on every answer, with a refresh queued behind the download.
final class SlowOriginMountTests: DaemonMountTestCase {
    static let delay = 30.0

    override class func makeServer() throws -> TestServer? {
        try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "\(delay)"])
    }

    /// Seconds `executable` took, failing the test unless it exits 0.
    func timed(_ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> TimeInterval {
        let start = Date()
        let outcome = try Command.run(executable, arguments, timeout: 120)
        XCTAssertEqual(outcome.status, 0, "\(executable) \(arguments): \(outcome.text)", file: file, line: line)
        return Date().timeIntervalSince(start)
    }

    func testRmAndUnmountReturnAtOnceWhileADownloadWaitsAndARefreshIsQueued() throws {
        // The origin's 30 s answers stand for downloads under way: a stall timeout beyond them
        // keeps each request a single arrival.
        try mountPackFS(["--stall-timeout", "60"])
        let region = try regionFile("region.json")
        _ = try timed("/bin/cp", [region, packs + "/slow.region"])
        XCTAssertTrue(try eventually { try server.arrivals().map(\.uri) == ["/styles/bright.json"] }, "the style request arrived")
        _ = try timed("/usr/bin/touch", [packs + "/slow.region"])

        let rm = try timed("/bin/rm", [packs + "/slow.region"])
        print("rm with a download waiting on a \(Self.delay) s origin and a refresh queued: \(String(format: "%.3f", rm)) s")
        XCTAssertLessThan(rm, 5)
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/slow"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: packs), [])

        // A second download waits on the origin while the mount goes away.
        _ = try timed("/bin/cp", [region, packs + "/other.region"])
        XCTAssertTrue(try eventually { try server.arrivals().count == 2 }, "the second style request arrived")
        let start = Date()
        _ = try timed("/usr/bin/fusermount3", ["-u", mount.path])
        XCTAssertTrue(eventually { !FileManager.default.fileExists(atPath: db + "-wal") }, "the daemon closed the database")
        let unmount = Date().timeIntervalSince(start)
        print("unmount with a download waiting on a \(Self.delay) s origin: \(String(format: "%.3f", unmount)) s")
        XCTAssertLessThan(unmount, 5)
        XCTAssertEqual(try server.arrivals().map(\.uri), ["/styles/bright.json", "/styles/bright.json"], "the refresh sent nothing")

        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        defer { try? database.close() }
        XCTAssertEqual(try database.packs().map(\.name), ["other"])
        XCTAssertEqual(try database.status(of: database.pack(named: "other").id).state, .active, "resumes at the next mount")
    }
}
