import Basics
import Downloader
import Foundation
import PackStore
import TestSupport
import XCTest

/// The fault matrix through whole downloads of the Helsinki pack (322 resources), one kind at a
/// time: with a fifth of the requests faulty the pack completes and every stored resource and
/// tile equals the origin's bytes; with a fault that never ends the pack stops in `error` with a
/// message naming the cause and the URL, and what it stored is still exact. (Redirects:
/// RedirectDownloadTests; DNS: CLITests/NetworkFaultCommandTests; every kind at once:
/// EveryFaultTests.)
final class FaultMatrixTests: PackDownloadTestCase {
    /// A quick stall timeout; the other fault parameters are short too.
    private var options: DownloadOptions {
        var options = DownloadOptions()
        options.http.stallTimeout = 1
        return options
    }

    private func completes(through kind: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let faults = try TestServer.faultServer([
            "--gzip", "--seed", "3", "--rate-\(kind)", "0.2", "--retry-after", "1", "--slow-seconds", "0.3",
            "--drip-seconds", "0.5",
        ])
        server = faults
        let status = try download(helsinki(faults.baseURL), options: options)
        XCTAssertEqual(status.state, .complete, status.error ?? "", file: file, line: line)
        let injected = try faults.accessLog().filter { $0.fault == kind }.count
        XCTAssertGreaterThanOrEqual(injected, 40, "\(kind) injected", file: file, line: line)
        try assertStoredContentMatchesOrigin(faults, file: file, line: line)
    }

    func test500() throws { try completes(through: "500") }
    func test502() throws { try completes(through: "502") }
    func test503() throws { try completes(through: "503") }
    func test429WithRetryAfter() throws { try completes(through: "429") }
    func testConnectionReset() throws { try completes(through: "reset") }
    func testTruncatedBody() throws { try completes(through: "truncate") }
    func testShortContentLength() throws { try completes(through: "length") }
    func testCorruptGzip() throws { try completes(through: "corrupt") }
    func testSlowAnswer() throws { try completes(through: "slow") }
    func testSlowDrip() throws { try completes(through: "drip") }
    func testHalfABodyThenNothing() throws { try completes(through: "hang") }
    func testNoAnswerAtAll() throws { try completes(through: "stall") }

    /// Faults that never end on one resource (three attempts here): the pack ends in `error`
    /// naming the cause and the URL, and everything it stored meanwhile is exact.
    func testPersistentFaultsEndInErrorNamingTheCauseAndTheURL() throws {
        let path = "/sprites/bright@2x.png"
        let causes = ["503": "HTTP 503", "reset": "(curl error", "truncate": "(curl error",
                      "corrupt": "bad response body", "hang": "stall timeout", "stall": "stall timeout"]
        var options = options
        options.http.retry.maxAttempts = 3
        for (kind, cause) in causes.sorted(by: { $0.key < $1.key }) {
            let faults = try TestServer.faultServer(["--gzip", "--fail-path", "\(path)=\(kind)"])
            defer { faults.stop() }
            databaseFile = "\(kind).db"
            let status = try download(helsinki(faults.baseURL), options: options)
            XCTAssertEqual(status.state, .error, kind)
            let message = status.error ?? ""
            XCTAssertTrue(message.contains(cause) && message.contains(faults.url(path)), "\(kind): \(message)")
            // Three attempts; a reset can add requests: libcurl itself resends a request (up to 5
            // times, CONN_MAX_RETRIES) when the reused connection it went out on died before
            // any answer, so each attempt is 1 to 6 requests.
            let requests = try faults.accessLog().filter { $0.uri == path }.count
            XCTAssertTrue(kind == "reset" ? (3...18).contains(requests) : requests == 3, "\(kind): \(requests) requests")
            try assertStoredContentMatchesOrigin(faults)
        }
    }

    /// The origin goes away mid-download (its connections drop, new ones are refused) and comes
    /// back on the same port: the failed attempts are retried with backoff and the pack completes.
    func testAnOriginThatGoesAwayAndComesBack() throws {
        let first = try TestServer.faultServer(["--gzip", "--rate-slow", "1", "--slow-seconds", "0.05"])
        server = first
        var options = options
        options.http.concurrency = 4
        let (download, database) = try makeDownload(helsinki(first.baseURL), options: options)
        defer { try? database.close() }
        let ended = LockedState<PackStatus?>(nil)
        Thread.detachNewThread {
            let status = download.run()
            ended.withLock { $0 = status }
        }
        XCTAssertTrue(try eventually { try first.arrivals().count >= 50 }, "under way")
        first.stop()
        let retried = download.statistics.retries
        XCTAssertTrue(eventually { download.statistics.retries >= retried + 4 }, "attempts failed while it was away")
        XCTAssertNil(ended.withLock { $0 }, "still running")
        let back = try TestServer.faultServer(["--gzip"], port: first.port)
        server = back
        XCTAssertTrue(eventually(timeout: 120) { ended.withLock { $0 } != nil })
        let status = ended.withLock { $0 }
        XCTAssertEqual(status?.state, .complete, status?.error ?? "")
        XCTAssertGreaterThan(try back.accessLog().count, 0, "the rest came from the server that came back")
        try assertStoredContentMatchesOrigin(back)
    }
}
