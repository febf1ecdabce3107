import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Sixteen readers while one pack downloads and another is removed: every read returns the
/// exact bytes or a clean ENOENT, never EIO.
final class ConcurrencyTests: DaemonMountTestCase {
    var nginx: TestServer { server }
    var slow: TestServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        slow = try TestServer.faultServer(["--rate-slow", "1", "--slow-seconds", "0.05"])
    }

    override func tearDown() {
        super.tearDown()
        slow?.stop()
    }

    private func region(_ base: String, to path: String) throws {
        try Self.region(style: base + "/styles/bright.json")
            .write(toFile: path, atomically: false, encoding: .utf8)  // create + write + close, like cp
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
        try mountPackFS()
        try region(nginx.baseURL, to: packs + "/read.region")
        try region(nginx.baseURL, to: packs + "/doomed.region")
        waitForState("read", timeout: 60)
        waitForState("doomed", timeout: 60)
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
        let failures = LockedState<[String]>([])
        let reads = LockedState(Reads())
        let removed = DispatchSemaphore(value: 0)
        let packs = self.packs
        let snapshot = expected
        Thread.detachNewThread {
            _ = eventually { reads.withLock { $0.total >= Reads.perPhase } }  // the readers are at work
            let rm = MountHelper.runTool("/bin/rm", ["-rf", packs + "/doomed"])
            if rm.status != 0 { failures.withLock { $0.append("rm -rf doomed: \(rm.status)") } }
            reads.withLock { $0.removed = true }
            removed.signal()
        }
        let stop = Date().addingTimeInterval(120)
        DispatchQueue.concurrentPerform(iterations: 16) { reader in
            var index = reader
            while Date() < stop, reads.withLock({ $0.another() }) {
                let path = paths[index % paths.count]
                index += 7
                switch Self.readFile(path) {
                case .success(let data) where data == snapshot[path]: break
                case .success: failures.withLock { $0.append("\(path): wrong bytes") }
                case .failure(let error) where error.code == .ENOENT && path.contains("/doomed/"): break
                case .failure(let error): failures.withLock { $0.append("\(path): \(error.code)") }
                }
                _ = Self.readFile(packs + "/growing/progress.json")
                _ = try? FileManager.default.contentsOfDirectory(atPath: packs + "/growing/14")
            }
        }
        XCTAssertEqual(removed.wait(timeout: .now() + 60), .success, "rm -rf doomed did not finish")
        XCTAssertEqual(failures.withLock { $0 }.prefix(20), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/doomed"))
        for path in paths where path.contains("/read/") {
            XCTAssertEqual(try? Self.readFile(path).get(), expected[path], path)
        }
    }

    /// The readers' reads: they go on until the removal has ended and as many more were read
    /// after it as before it began.
    struct Reads {
        static let perPhase = 160
        var total = 0
        var afterRemoval = 0
        var removed = false

        /// Counts a read about to start; false once the readers are done.
        mutating func another() -> Bool {
            guard !removed || afterRemoval < Self.perPhase else { return false }
            total += 1
            if removed { afterRemoval += 1 }
            return true
        }
    }
}
