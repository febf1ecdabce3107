import Foundation
import PackStore
import TestSupport
import XCTest

/// Sixteen readers while one pack downloads and another is removed: every read returns the
/// exact bytes or a clean ENOENT, never EIO.
final class ConcurrencyTests: XCTestCase {
    var mount: MountHelper!
    var nginx: TestServer!
    var slow: TestServer!
    var packs: String { mount.path + "/packs" }

    override func setUpWithError() throws {
        try MountHelper.requireFUSE()
        mount = try MountHelper()
        nginx = try TestServer.nginx()
        slow = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
    }

    override func tearDown() {
        mount?.unmount()
        nginx?.stop()
        slow?.stop()
    }

    private func region(_ base: String, to path: String) throws {
        try """
            {"style": "\(base)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18], "minzoom": 0, "maxzoom": 14}
            """.write(toFile: path, atomically: false, encoding: .utf8)  // create + write + close, like cp
    }

    private func waitForComplete(_ name: String) {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let data = FileManager.default.contents(atPath: "\(packs)/\(name)/progress.json"),
               JSONValue.parse(data)?["state"] == .string("complete") { return }
            usleep(100_000)
        }
        XCTFail("\(name) did not complete")
    }

    /// read(2) to the end: the bytes, or the errno of the failing call.
    private static func readFile(_ path: String) -> Result<Data, POSIXError> {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 { return .failure(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)) }
            if count == 0 { return .success(data) }
            data.append(buffer, count: count)
        }
    }

    func testSixteenReadersDuringADownloadAndARemoval() throws {
        let outcome = MountHelper.runTool(BuiltProducts.executable("packfs").path, ["mount", mount.directory.path("packs.db"), mount.path])
        XCTAssertEqual(outcome.status, 0)
        try region(nginx.baseURL, to: packs + "/read.region")
        try region(nginx.baseURL, to: packs + "/doomed.region")
        waitForComplete("read")
        waitForComplete("doomed")
        // What the readers read: every tile, glyph and sprite of "read" and "doomed", with the
        // origin's bytes.
        var expected: [String: Data] = [:]
        for pack in ["read", "doomed"] {
            for file in try FileManager.default.subpathsOfDirectory(atPath: "\(packs)/\(pack)") {
                let parts = file.split(separator: "/").map(String.init)
                if parts.count == 3, Int(parts[0]) != nil, file.hasSuffix(".pbf") {
                    expected["\(packs)/\(pack)/\(file)"] = try nginx.expectedContent("/tiles/helsinki/" + file)
                } else if parts.count == 3, parts[0] == "glyphs" {
                    expected["\(packs)/\(pack)/\(file)"] = try nginx.expectedContent("/fonts/\(parts[1])/\(parts[2])")
                }
            }
        }
        XCTAssertEqual(expected.count, 2 * (19 + 291))
        let paths = Array(expected.keys)

        try region(slow.baseURL, to: packs + "/growing.region")
        let stop = Date().addingTimeInterval(4)
        let failures = Locked<[String]>([])
        let removed = DispatchSemaphore(value: 0)
        let packs = self.packs
        let snapshot = expected
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
            let rm = MountHelper.runTool("/bin/rm", ["-rf", packs + "/doomed"])
            if rm.status != 0 { failures.mutate { $0.append("rm -rf doomed: \(rm.status)") } }
            removed.signal()
        }
        DispatchQueue.concurrentPerform(iterations: 16) { reader in
            var index = reader
            while Date() < stop {
                let path = paths[index % paths.count]
                index += 7
                switch Self.readFile(path) {
                case .success(let data) where data == snapshot[path]: break
                case .success: failures.mutate { $0.append("\(path): wrong bytes") }
                case .failure(let error) where error.code == .ENOENT && path.contains("/doomed/"): break
                case .failure(let error): failures.mutate { $0.append("\(path): \(error.code)") }
                }
                _ = Self.readFile(packs + "/growing/progress.json")
                _ = try? FileManager.default.contentsOfDirectory(atPath: packs + "/growing/14")
            }
        }
        // On a loaded machine the removal may outlast the readers: its outcome is what counts.
        XCTAssertEqual(removed.wait(timeout: .now() + 60), .success, "rm -rf doomed did not finish")
        XCTAssertEqual(failures.value.prefix(20), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/doomed"))
        for path in paths where path.contains("/read/") {
            XCTAssertEqual(try? Self.readFile(path).get(), expected[path], path)
        }
    }
}
