import Downloader
import Foundation
import HTTP
import PackStore
import TestSupport
import XCTest

/// The client against Tests/servers/faultserver.py: resets, truncations, 5xx, 429, corrupt gzip.
final class HTTPClientFaultTests: PackFSTestCase {
    private var http: ClientUnderTest?

    override func tearDown() {
        http?.client.shutdown()
        super.tearDown()
    }

    private func start(_ arguments: [String], configuration: HTTPClientConfiguration = testConfiguration(),
                       allowHost: @escaping @Sendable (String, Int) -> Bool = { host, _ in host == "127.0.0.1" }) throws
        -> (TestServer, ClientUnderTest) {
        let server = try TestServer.faultServer(arguments)
        let http = try ClientUnderTest(configuration, allowHost: allowHost)
        self.server = server
        self.http = http
        return (server, http)
    }

    func testEveryKindOfFaultStillEndsWithExactBytes() throws {
        let kinds = ["500", "502", "503", "429", "reset", "truncate", "corrupt", "slow"]
        let (server, http) = try start(["--gzip", "--seed", "7", "--retry-after", "1", "--slow-seconds", "0.1"]
            + kinds.flatMap { ["--rate-\($0)", "0.1"] })
        let paths = fixturePaths("tiles/land", suffix: ".pbf")
            + fixturePaths("fonts/Noto Sans Italic", suffix: ".pbf").prefix(32)
        XCTAssertEqual(paths.count, 300)
        let results = http.fetch(paths.map(server.url))
        for (path, completion) in zip(paths, results) {
            let response = completion.outcome.response
            XCTAssertNotNil(response, "\(path): \(completion.outcome)")
            XCTAssertEqual(response?.content, try server.expectedContent(path), path)
            XCTAssertEqual(try response?.stored.decoded(), response?.content, path)
        }
        let log = try server.accessLog()
        for kind in kinds {
            XCTAssertGreaterThanOrEqual(log.filter { $0.fault == kind }.count, 15, "\(kind) injected")
        }
        let retried = results.filter { $0.attempts > 1 }.count
        XCTAssertGreaterThan(retried, 100)
        XCTAssertEqual(http.client.statistics.retries, results.map { $0.attempts - 1 }.reduce(0, +))
    }

    func testScriptedResetTruncationAndCorruptionAreRetried() throws {
        let path = "/fonts/Noto%20Sans%20Bold/0-255.pbf"
        let (server, http) = try start(["--gzip", "--script", "\(path)=reset,truncate,corrupt,502"])
        let completion = try XCTUnwrap(http.fetch(server.url(path)))
        XCTAssertEqual(completion.outcome.response?.content, try server.expectedContent(path))
        XCTAssertEqual(completion.attempts, 5)
        XCTAssertEqual(try server.accessLog().map { $0.fault ?? "-" }, ["reset", "truncate", "corrupt", "502", "-"])
    }

    func testRetryAfterIsHonoured() throws {
        let path = "/tiles/land/2/1/1.pbf"
        let (server, http) = try start(["--script", "\(path)=429", "--retry-after", "2"])
        let completion = try XCTUnwrap(http.fetch(server.url(path)))
        XCTAssertNotNil(completion.outcome.response)
        XCTAssertEqual(completion.attempts, 2)
        let log = try server.accessLog()
        XCTAssertEqual(log.map(\.status), [429, 200])
        let waited = log[1].time - log[0].time
        XCTAssert(waited >= 2.0 && waited < 4.0, "waited \(waited) s")
    }

    func testARetryWaitingForItsTimeDoesNotHoldUpOthers() throws {
        let slow = "/tiles/land/0/0/0.pbf"
        let (server, http) = try start(["--script", "\(slow)=429", "--retry-after", "1"],
                                       configuration: testConfiguration(concurrency: 1))
        let others = fixturePaths("tiles/land", suffix: ".pbf").filter { $0 != slow }.prefix(10)
        let results = http.fetch(([slow] + others).map(server.url))
        XCTAssertTrue(results.allSatisfy { $0.outcome.response != nil })
        let order = http.collector.all.map(\.tag)
        XCTAssertEqual(order.last, 0, "one slot, yet the backing-off request finished last")
        XCTAssertEqual(try server.accessLog().count, 12)
        XCTAssertLessThan(results[1...].map(\.attempts).reduce(0, +), 11, "no other request retried")
    }

    func testForbiddenIsAClientErrorAndNotRetried() throws {
        let path = "/tiles/land/1/0/0.pbf"
        let (server, http) = try start(["--fail-path", "\(path)=403"])
        let completion = try XCTUnwrap(http.fetch(server.url(path)))
        guard case .failure(.status(403, _)) = completion.outcome else { return XCTFail("\(completion.outcome)") }
        XCTAssertEqual(completion.failure?.description, "HTTP 403 for \(server.url(path))")
        XCTAssertEqual(try server.accessLog().count, 1)
    }

    func testNotFoundAndNoContentAreNoContent() throws {
        let (server, http) = try start(["--fail-path", "/empty=204"])
        let results = http.fetch([server.url("/tiles/land/9/0/0.pbf"), server.url("/empty")])
        guard case .success(.noContent(404, _)) = results[0].outcome, case .success(.noContent(204, _)) = results[1].outcome else {
            return XCTFail("\(results.map(\.outcome))")
        }
    }

    func testServerErrorsExhaustTheAttempts() throws {
        let (server, http) = try start(["--fail-path", "/down=503"], configuration: testConfiguration(attempts: 3))
        let completion = try XCTUnwrap(http.fetch(server.url("/down")))
        XCTAssertEqual(completion.failure, .status(503, url: server.url("/down")))
        XCTAssertEqual(completion.attempts, 3)
        XCTAssertEqual(try server.accessLog().count, 3)
    }

    func testRedirectsAreFollowedOnlyToAllowedHosts() throws {
        let target = "/tiles/land/1/1/1.pbf"
        let (server, http) = try start(["--redirect", "/inside={base}\(target)",
                                        "--redirect", "/outside=http://localhost:1\(target)",
                                        "--redirect", "/file=file:///etc/passwd"])
        let results = http.fetch(["/inside", "/outside", "/file"].map(server.url))
        XCTAssertEqual(results[0].outcome.response?.content, try server.expectedContent(target))
        XCTAssertEqual(results[0].finalURL, server.url(target))
        XCTAssertEqual(results[1].failure, .redirectRefused(host: "localhost:1", from: server.url("/outside"),
                                                             to: "http://localhost:1\(target)"))
        XCTAssertTrue(results[1].failure?.description.contains("localhost") ?? false)
        XCTAssertNotNil(results[2].failure)
        XCTAssertEqual(try server.accessLog().map(\.uri).sorted(), ["/file", "/inside", "/outside", target].sorted(),
                       "nothing sent beyond the allowed redirect")
    }

    func testOtherSchemesAndHostsAreRefusedWithoutARequest() throws {
        let (server, http) = try start([])
        let urls = ["file:///etc/passwd", "ftp://127.0.0.1:\(server.port)/styles/bright.json",
                    "http://localhost:\(server.port)/styles/bright.json", "not a url"]
        let results = http.fetch(urls)
        XCTAssertEqual(results[0].failure, .unsupportedScheme(url: urls[0]))
        XCTAssertEqual(results[1].failure, .unsupportedScheme(url: urls[1]))
        XCTAssertEqual(results[2].failure, .hostNotAllowed(host: "localhost:\(server.port)", url: urls[2]))
        XCTAssertNotNil(results[3].failure)
        XCTAssertTrue(results.allSatisfy { $0.attempts == 0 })
        XCTAssertEqual(try server.accessLog().count, 0)
    }

    func testChangingETagsAreRefetched() throws {
        let path = "/tiles/land/3/4/2.pbf"
        let (server, http) = try start(["--etag-mode", "generation", "--cache-control", "max-age=60"])
        let first = try XCTUnwrap(http.fetch(server.url(path))?.outcome.response)
        XCTAssertNotNil(first.headers.expires)
        guard case .success(.notModified) = http.fetch(server.url(path), validators: HTTPValidators(first.headers))?.outcome else {
            return XCTFail("expected 304")
        }
        XCTAssertNotNil(http.fetch(server.url("/_control/bump"))?.outcome.response)
        let changed = try XCTUnwrap(http.fetch(server.url(path), validators: HTTPValidators(first.headers))?.outcome.response)
        XCTAssertNotEqual(changed.headers.etag, first.headers.etag)
        XCTAssertEqual(changed.content, first.content)
    }

    func testCancelAndShutdownCompleteEverythingOnce() throws {
        let (server, http) = try start(["--rate-slow", "1", "--slow-seconds", "5"])
        let paths = fixturePaths("tiles/land", suffix: ".pbf").prefix(30)
        let started = Date()
        http.client.submit(contentsOf: paths.enumerated().map { HTTPRequest(url: server.url($1), tag: $0) })
        // Cancelled once the first 20 (the concurrency) are in flight, the server sitting on them.
        XCTAssertTrue(try eventually { try server.arrivals().count >= 20 }, "20 requests in flight")
        http.client.cancel(where: { $0 < 10 })
        XCTAssertEqual(http.collector.wait(count: 10, timeout: 3).count, 10)
        http.client.shutdown()
        let all = http.collector.all
        XCTAssertEqual(all.count, 30)
        XCTAssertEqual(Set(all.map(\.tag)).count, 30)
        XCTAssertTrue(all.allSatisfy { if case .failure(.cancelled) = $0.outcome { return true } else { return false } })
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
        http.client.submit(HTTPRequest(url: server.url("/late"), tag: 99))
        XCTAssertEqual(http.collector.all.last?.tag, 99, "completed at once after shutdown")
    }
}
