import Downloader
import Foundation
import HTTP
import TestSupport
import XCTest

/// Transfers that go silent, against Tests/servers/faultserver.py: `stall` (the request is read,
/// nothing is ever answered), `hang` (half a body, then nothing), `drip` (slow but never silent
/// for long), and a wrong Content-Length. The server's logs say what happened when, so no test
/// waits for a fixed time.
final class HTTPClientStallTests: PackFSTestCase {
    private var http: ClientUnderTest?

    override func tearDown() {
        http?.client.shutdown()
        super.tearDown()
    }

    private func start(_ arguments: [String], concurrency: Int = 20, stallTimeout: Double = 1,
                       quietAfter: Double = 1) throws -> (TestServer, ClientUnderTest) {
        var configuration = testConfiguration(concurrency: concurrency)
        configuration.stallTimeout = stallTimeout
        configuration.quietAfter = quietAfter
        let server = try TestServer.faultServer(["--gzip"] + arguments)
        self.server = server
        let http = try ClientUnderTest(configuration)
        self.http = http
        return (server, http)
    }

    func testStalledAndHangingAnswersAreAbandonedAfterTheStallTimeoutAndRetried() throws {
        let stalled = "/tiles/land/2/1/1.pbf", hanging = "/fonts/Noto%20Sans%20Bold/0-255.pbf"
        let (server, http) = try start(["--script", "\(stalled)=stall", "--script", "\(hanging)=hang"])
        let results = http.fetch([stalled, hanging].map(server.url))
        for (path, completion) in zip([stalled, hanging], results) {
            XCTAssertEqual(completion.outcome.response?.content, try server.expectedContent(path), path)
            XCTAssertEqual(completion.attempts, 2, path)
            // The second request came after one stall timeout of silence: not before (a live
            // transfer is never cut), and not libcurl's moving-average 6 s or more. The client
            // counts the silence from when it sent the request, the server's clock from when the
            // request arrived, a little later (13 ms once under ThreadSanitizer): 0.1 s of slack.
            let times = try server.arrivals().filter { $0.uri == path }.map(\.time)
            XCTAssertEqual(times.count, 2, path)
            if times.count == 2 {
                print(String(format: "%@ asked again %.2f s after its first, silent attempt", path, times[1] - times[0]))
                XCTAssertGreaterThanOrEqual(times[1] - times[0], 0.9, path)
                XCTAssertLessThan(times[1] - times[0], 5.0, path)
            }
        }
        XCTAssertEqual(try server.accessLog().compactMap(\.fault).sorted(), ["hang", "stall"])
        XCTAssertEqual(http.client.statistics.stalls, 2)
    }

    func testAStallThatNeverEndsFailsNamingTheTimeoutAndTheURL() throws {
        let path = "/tiles/land/1/0/0.pbf"
        var configuration = testConfiguration(attempts: 2)
        configuration.stallTimeout = 0.5
        let server = try TestServer.faultServer(["--fail-path", "\(path)=stall"])
        self.server = server
        let http = try ClientUnderTest(configuration)
        self.http = http
        let completion = try XCTUnwrap(http.fetch(server.url(path)))
        let message = completion.failure?.description ?? ""
        XCTAssertTrue(message.contains("nothing received for 0.5 s (stall timeout)"), message)
        XCTAssertTrue(message.contains(server.url(path)), message)
        XCTAssertEqual(completion.attempts, 2)
    }

    /// Concurrency 2 and two answers that never come: once they have been silent for `quietAfter`
    /// they stop counting, and the other 20 requests are all answered while the two still wait
    /// for their (30 s) stall timeout, each asked once.
    func testSilentTransfersDoNotKeepTheOthersWaiting() throws {
        let stalled = ["/tiles/land/0/0/0.pbf", "/tiles/land/1/0/0.pbf"]
        let (server, http) = try start(stalled.flatMap { ["--script", "\($0)=stall"] }, concurrency: 2,
                                       stallTimeout: 30, quietAfter: 0.2)
        let others = fixturePaths("tiles/land", suffix: ".pbf").filter { !stalled.contains($0) }.prefix(20)
        http.client.submit(contentsOf: (stalled + others).enumerated().map { HTTPRequest(url: server.url($1), tag: $0) })
        let done = http.collector.wait(count: 20, timeout: 120)
        XCTAssertEqual(Set(done.map(\.tag)), Set(2..<22), "the other 20 completed first")
        XCTAssertTrue(done.allSatisfy { $0.outcome.response != nil })
        let arrivals = try server.arrivals().map(\.uri)
        for path in stalled {
            XCTAssertEqual(arrivals.filter { $0 == path }.count, 1, "\(path) still in its first, silent attempt")
        }
        XCTAssertEqual(http.client.statistics.stalls, 0)
        XCTAssertGreaterThan(http.client.statistics.besideQuiet, 0)
    }

    /// A server that answers nothing at all gets at most twice the concurrency in requests: the
    /// fifth of them (concurrency 2) arrives only when the first has been abandoned.
    func testADeadServerGetsAtMostTwiceTheConcurrency() throws {
        let (server, http) = try start(["--rate-stall", "1"], concurrency: 2, stallTimeout: 2, quietAfter: 0.2)
        let paths = Array(fixturePaths("tiles/land", suffix: ".pbf").prefix(8))
        http.client.submit(contentsOf: paths.enumerated().map { HTTPRequest(url: server.url($1), tag: $0) })
        XCTAssertTrue(eventually { http.client.statistics.stalls >= 1 && ((try? server.arrivals().count) ?? 0) >= 5 })
        let arrivals = try server.arrivals()
        XCTAssertEqual(Set(arrivals.prefix(4).map(\.connection)).count, 4, "four transfers on four connections")
        let gap = arrivals[4].time - arrivals[0].time
        XCTAssertGreaterThanOrEqual(gap, 1.9, "the fifth request waited for the first stall timeout")
        XCTAssertGreaterThanOrEqual(http.client.statistics.besideQuiet, 2)
    }

    /// A body sent 64 bytes at a time over 2 s (twice the stall timeout) is never silent for
    /// long: it completes on its first attempt.
    func testASlowDripCompletesWithoutARetry() throws {
        let path = "/fonts/Noto%20Sans%20Regular/0-255.pbf"
        let (server, http) = try start(["--script", "\(path)=drip", "--drip-seconds", "2", "--drip-bytes", "64"])
        let completion = try XCTUnwrap(http.fetch(server.url(path)))
        XCTAssertEqual(completion.outcome.response?.content, try server.expectedContent(path))
        XCTAssertEqual(completion.attempts, 1)
        XCTAssertEqual(try server.accessLog().map(\.fault), ["drip"])
        XCTAssertEqual(http.client.statistics.stalls, 0)
    }

    /// A Content-Length a quarter short of the gzip body: libcurl reads that much and calls the
    /// answer complete; the gzip trailer's CRC-32 and length are missing, so the body is refused
    /// as corrupt and asked again. Nothing cut short is ever handed on.
    func testAShortContentLengthIsCaughtAndRetried() throws {
        let paths = ["/tiles/land/3/4/2.pbf", "/sprites/bright.json", "/sprites/bright@2x.png"]
        let (server, http) = try start(paths.flatMap { ["--script", "\($0)=length,length"] })
        let results = http.fetch(paths.map(server.url))
        for (path, completion) in zip(paths, results) {
            XCTAssertEqual(completion.outcome.response?.content, try server.expectedContent(path), path)
            XCTAssertEqual(completion.attempts, 3, path)
        }
        XCTAssertEqual(try server.accessLog().filter { $0.fault == "length" }.count, 6)
    }
}
