import Downloader
import Foundation
import PackStore
import TestSupport
import XCTest

/// Redirects in whole downloads of the Helsinki pack: followed only to http and https URLs whose
/// host (and port, when the entry names one) `--allow-host` allows; a loop, a host not allowed
/// or another scheme stops the pack in `error` naming the redirect, before anything is sent
/// to the target, and what was stored is exact. The redirected resource is the 2x sprite image.
final class RedirectDownloadTests: PackDownloadTestCase {
    let sprite = "/sprites/bright@2x.png"

    private func origin(redirects: [String: String]) throws -> TestServer {
        let origin = try TestServer.faultServer(["--gzip"] + redirects.flatMap { ["--redirect", "\($0)=\($1)"] })
        server = origin
        return origin
    }

    private func options(allowing hosts: [String]) -> DownloadOptions {
        var options = DownloadOptions()
        options.urlPolicy = URLPolicy(allowedHosts: hosts)
        return options
    }

    func testARedirectLoopEndsInErrorNamingTheURL() throws {
        let origin = try origin(redirects: [sprite: "{base}/elsewhere", "/elsewhere": "{base}\(sprite)"])
        let status = try download(helsinki(origin.baseURL))
        XCTAssertEqual(status.state, .error)
        XCTAssertEqual(status.error, "too many redirects for \(origin.url(sprite))")
        XCTAssertEqual(try origin.accessLog().filter { $0.uri == sprite || $0.uri == "/elsewhere" }.count, 11,
                       "the first request and 10 hops")
        try assertStoredContentMatchesOrigin(origin)
    }

    /// `--allow-host 127.0.0.1:ORIGIN` and a redirect to 127.0.0.1:OTHER: refused, and the other
    /// server never hears of it. (Until this test, an entry with a port allowed its host on any
    /// port for redirects.) With both allowed, the same redirect is followed and the pack exact.
    func testARedirectToAHostNotAllowedIsRefusedBeforeAnyRequestReachesIt() throws {
        let other = try TestServer.faultServer(["--gzip"])
        defer { other.stop() }
        let origin = try origin(redirects: [sprite: other.url(sprite)])
        let allowed = "127.0.0.1:\(origin.port)"
        let refused = try download(helsinki(origin.baseURL), options: options(allowing: [allowed]))
        XCTAssertEqual(refused.state, .error)
        XCTAssertEqual(refused.error, "refused redirect from \(origin.url(sprite)) to \(other.url(sprite)): "
                       + "host 127.0.0.1:\(other.port) is not allowed")
        XCTAssertEqual(try other.arrivals().count, 0, "nothing reached the host not allowed")
        try assertStoredContentMatchesOrigin(origin)

        databaseFile = "both.db"
        let followed = try download(helsinki(origin.baseURL), options: options(allowing: [allowed, "127.0.0.1:\(other.port)"]))
        XCTAssertEqual(followed.state, .complete, followed.error ?? "")
        XCTAssertEqual(try other.arrivals().map(\.uri), [sprite])
        try assertStoredContentMatchesOrigin(origin)
    }

    /// A scheme-relative Location (`//host/path`) keeps the scheme and changes the host: judged
    /// like any other host.
    func testASchemeRelativeRedirectIsJudgedByItsHost() throws {
        let origin = try origin(redirects: [sprite: "//localhost:1\(sprite)"])
        let status = try download(helsinki(origin.baseURL), options: options(allowing: ["127.0.0.1"]))
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.hasSuffix("to http://localhost:1\(sprite): host localhost:1 is not allowed") == true,
                      status.error ?? "")
    }

    /// Only http and https are fetched, redirects included: libcurl is never asked for another
    /// scheme (its own redirect following is off, and CURLOPT_PROTOCOLS_STR says http,https).
    func testRedirectsToOtherSchemesAreRefused() throws {
        let targets = ["file:///etc/passwd", "ftp://127.0.0.1:21\(sprite)", "gopher://127.0.0.1:70/x",
                       "dict://127.0.0.1:2628/d:x", "mapbox://styles/a/b", "ldap://127.0.0.1/x", "scp://127.0.0.1/x"]
        for (index, target) in targets.enumerated() {
            let origin = try origin(redirects: [sprite: target])
            defer { origin.stop() }
            databaseFile = "scheme\(index).db"
            let status = try download(helsinki(origin.baseURL))
            XCTAssertEqual(status.state, .error, target)
            XCTAssertEqual(status.error, "refused redirect from \(origin.url(sprite)) to \(target): "
                           + "only http and https URLs are fetched", target)
            try assertStoredContentMatchesOrigin(origin)
        }
    }
}
