import Basics
import Downloader
import Foundation
import HTTP
import PackStore
import TestSupport
import XCTest

/// The client against nginx serving Fixtures/world (gzip on, ETags, keep-alive).
final class HTTPClientNginxTests: PackFSTestCase {
    private var http: ClientUnderTest!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer.nginx()
        http = try ClientUnderTest(testConfiguration(), allowHost: { host, _ in host == "127.0.0.1" })
    }

    override func tearDown() {
        http?.client.shutdown()
        super.tearDown()
    }

    private let samples = ["/styles/bright.json", "/tiles/helsinki.json", "/tiles/land/0/0/0.pbf",
                           "/tiles/helsinki/14/9326/4741.pbf", "/fonts/Noto%20Sans%20Bold/0-255.pbf",
                           "/sprites/bright.json"]

    func testGzipBodiesAreReframedAndInflateToTheServedBytes() throws {
        let results = http.fetch(samples.map(server.url))
        for (path, completion) in zip(samples, results) {
            let response = try XCTUnwrap(completion.outcome.response, "\(path): \(completion.outcome)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.content, try server.expectedContent(path), path)
            XCTAssertEqual(try response.stored.decoded(), response.content, path)
            if response.stored.compressed, let stored = response.stored.bytes {
                XCTAssertEqual(Array(stored.prefix(2)), [0x78, 0x9C], path)
                XCTAssertEqual(try ZlibGzip.uncompress(stored, size: response.content.count), response.content)
            }
        }
        let log = try server.waitForLog(count: samples.count)
        XCTAssertEqual(log.count, samples.count)
        XCTAssertTrue(log.allSatisfy { $0.acceptEncoding == "gzip, deflate" })
        let glyphs = try XCTUnwrap(results[4].outcome.response)
        XCTAssertTrue(glyphs.stored.compressed)
        XCTAssertLessThan(glyphs.wireBytes, glyphs.content.count, "sent gzipped")
        XCTAssertEqual(glyphs.stored.storedSize, glyphs.wireBytes - 18 + 6, "same deflate bytes, zlib frame")
    }

    func testPregzippedSiblingsAreReframed() throws {
        server.stop()
        server = try TestServer.nginx(pregzip: true)
        let results = http.fetch(samples.map(server.url))
        for (path, completion) in zip(samples, results) {
            let response = try XCTUnwrap(completion.outcome.response, path)
            XCTAssertEqual(response.content, try server.expectedContent(path), path)
            XCTAssertEqual(try response.stored.decoded(), response.content, path)
        }
    }

    func testImagesAreSentAsIsAndStoredByMapLibresRule() throws {
        let path = "/sprites/bright.png"
        let response = try XCTUnwrap(http.fetch(server.url(path))?.outcome.response)
        XCTAssertEqual(response.content, try server.expectedContent(path))
        XCTAssertEqual(response.wireBytes, response.content.count)
        XCTAssertEqual(response.stored, StoredData.encoding(response.content))
    }

    func testValidatorsAreCapturedAndAConditionalRequestGets304() throws {
        let url = server.url("/tiles/land/1/1/0.pbf")
        let first = try XCTUnwrap(http.fetch(url)?.outcome.response)
        let etag = try XCTUnwrap(first.headers.etag)
        XCTAssertNotNil(first.headers.modified)
        let byETag = http.fetch(url, validators: HTTPValidators(first.headers))
        guard case .success(.notModified) = byETag?.outcome else { return XCTFail("\(String(describing: byETag?.outcome))") }
        let byDate = http.fetch(url, validators: HTTPValidators(etag: nil, modified: first.headers.modified))
        guard case .success(.notModified) = byDate?.outcome else { return XCTFail("\(String(describing: byDate?.outcome))") }
        let stale = http.fetch(url, validators: HTTPValidators(etag: "\"stale\""))
        XCTAssertNotNil(stale?.outcome.response)
        let log = try server.waitForLog(count: 4)
        XCTAssertEqual(log.map(\.status), [200, 304, 304, 200])
        XCTAssertEqual(log[1].ifNoneMatch, etag)
    }

    func testMissingFileIsNoContent() throws {
        let completion = http.fetch(server.url("/tiles/land/9/9/9.pbf"))
        guard case .success(.noContent(404, _)) = completion?.outcome else {
            return XCTFail("\(String(describing: completion?.outcome))")
        }
        XCTAssertEqual(completion?.attempts, 1)
    }

    func testTwentyConcurrentTransfersReuseTheirConnections() throws {
        let paths = fixturePaths("tiles/land", suffix: ".pbf") + fixturePaths("fonts/Noto Sans Regular", suffix: ".pbf")
        let results = http.fetch(paths.map(server.url))
        for (path, completion) in zip(paths, results) {
            XCTAssertEqual(completion.outcome.response?.content, try server.expectedContent(path), path)
        }
        let opened = results.map(\.newConnections).reduce(0, +)
        XCTAssertLessThanOrEqual(opened, 20, "at most one connection per slot")
        XCTAssertEqual(http.client.statistics.connections, opened)
        let log = try server.waitForLog(count: paths.count)
        XCTAssertEqual(log.count, paths.count)
        XCTAssertLessThanOrEqual(Set(log.map(\.connection)).count, 20, "nginx saw kept-alive connections")
    }

    func testHTTP2OverTLSMultiplexesOnOneConnection() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            // scripts/setup.sh installs openssl; only a hand-made laptop setup may lack it.
            if isCI { return XCTFail("openssl is needed to make the test certificate") }
            throw XCTSkip("openssl is needed to make the test certificate")
        }
        server.stop()
        server = try TestServer.nginx(tls: true)
        var configuration = testConfiguration()
        configuration.caFile = server.certificatePath
        http.client.shutdown()
        http = try ClientUnderTest(configuration, allowHost: { host, _ in host == "127.0.0.1" })
        let paths = Array(fixturePaths("fonts/Noto Sans Bold", suffix: ".pbf").prefix(60))
        let results = http.fetch(paths.map(server.url))
        for (path, completion) in zip(paths, results) {
            XCTAssertEqual(completion.outcome.response?.content, try server.expectedContent(path), path)
        }
        XCTAssertEqual(http.client.statistics.connections, 1, "20 streams multiplexed on one connection")
        let log = try server.waitForLog(count: paths.count)
        XCTAssertEqual(Set(log.compactMap(\.httpProtocol)), ["HTTP/2.0"])
        XCTAssertEqual(Set(log.map(\.connection)).count, 1)
    }
}
