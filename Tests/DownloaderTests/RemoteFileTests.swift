import Downloader
import Foundation
import PackStore
import TestSupport
import XCTest

/// A file fetched in ranges from nginx comes out byte for byte, whether its length is a whole
/// number of ranges (the end is a 416) or not (the end is a short range).
final class RemoteFileTests: XCTestCase {
    func testAFileFetchedInRangesIsWhole() throws {
        let server = try TestServer.nginx()
        defer { server.stop() }
        let file = try XCTUnwrap(server.servedRoot).appendingPathComponent("styles/bright.json")
        let expected = try Data(contentsOf: file)
        for chunk in [UInt64(1000), UInt64(expected.count), UInt64(expected.count / 4), UInt64(1 << 20)] {
            var received = Data()
            var parts = 0
            let total = try RemoteFile.fetch(server.url("/styles/bright.json"), options: DownloadOptions(), chunk: chunk) {
                received.append($0)
                parts += 1
            }
            XCTAssertEqual(received, expected, "chunk \(chunk)")
            XCTAssertEqual(total, UInt64(expected.count))
            XCTAssertEqual(parts, Int((UInt64(expected.count) + chunk - 1) / chunk), "chunk \(chunk)")
        }
        XCTAssertThrowsError(try RemoteFile.fetch(server.url("/nosuch"), options: DownloadOptions()) { _ in })
    }
}
