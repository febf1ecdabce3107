import Foundation
@testable import HTTP
import PackStore
@testable import StyleModel
import XCTest

@testable import Downloader

/// What is requested for a stored URL: mapbox:// expansion, --rewrite and --allow-host.
final class URLPolicyTests: XCTestCase {
    // MARK: - mapbox://

    func testMapboxExpansionPerKind() throws {
        let policy = URLPolicy(accessToken: "pk.T")
        let api = "https://api.mapbox.com"
        let expected: [(String, ResourceKind, String)] = [
            (
                "mapbox://styles/mapbox/streets-v11", .style,
                api + "/styles/v1/mapbox/streets-v11?access_token=pk.T"
            ),
            (
                "mapbox://styles/mapbox/streets-v11?fresh=true", .style,
                api + "/styles/v1/mapbox/streets-v11?access_token=pk.T&fresh=true"
            ),
            (
                "mapbox://mapbox.mapbox-streets-v8,mapbox.terrain-v2", .source,
                api + "/v4/mapbox.mapbox-streets-v8,mapbox.terrain-v2.json?access_token=pk.T&secure"
            ),
            (
                "mapbox://sprites/mapbox/bright-v9.json", .spriteJSON,
                api + "/styles/v1/mapbox/bright-v9/sprite.json?access_token=pk.T"
            ),
            (
                "mapbox://sprites/mapbox/bright-v9@2x.png", .spriteImage,
                api + "/styles/v1/mapbox/bright-v9/sprite@2x.png?access_token=pk.T"
            ),
            (
                "mapbox://fonts/mapbox/Open%20Sans%20Regular/0-255.pbf", .glyphs,
                api + "/fonts/v1/mapbox/Open%20Sans%20Regular/0-255.pbf?access_token=pk.T"
            ),
            (
                "mapbox://tiles/mapbox.streets/1/0/0.vector.pbf", .tile,
                api + "/v4/mapbox.streets/1/0/0.vector.pbf?access_token=pk.T"
            ),
        ]
        for (url, kind, request) in expected {
            XCTAssertEqual(try policy.requestURL(for: url, kind: kind), request)
        }
        XCTAssertEqual(
            try policy.requestURL(for: "https://x.test/a?b=1", kind: .style), "https://x.test/a?b=1")
    }

    func testMapboxErrors() {
        XCTAssertThrowsError(try URLPolicy().requestURL(for: "mapbox://styles/a/b", kind: .style)) {
            XCTAssertEqual($0 as? DownloadError, .missingAccessToken(url: "mapbox://styles/a/b"))
        }
        let policy = URLPolicy(accessToken: "pk.T")
        for (url, kind) in [
            ("mapbox://tiles/a/b", ResourceKind.style), ("mapbox://fonts/a/b", .tile),
            ("mapbox://styles/a/b", .spriteJSON), ("mapbox://x/y.png", .image),
        ] {
            XCTAssertThrowsError(try policy.requestURL(for: url, kind: kind)) {
                guard case DownloadError.invalidMapboxURL(let named, _) = $0 else { return XCTFail("\($0)") }
                XCTAssertEqual(named, url)
            }
        }
    }

    func testMapboxTileKeysExpandForTheRequest() throws {
        let template = "mapbox://tiles/mapbox.satellite/{z}/{x}/{y}{ratio}.webp?style=x"
        let raster = TileSource(id: "r", type: .raster, urlTemplate: template, tileSize: 256)
        let tile = raster.tile(z: 1, x: 1, y: 0, pixelRatio: 2)
        XCTAssertEqual(
            try URLPolicy(accessToken: "pk.T").requestURL(for: tile.url, kind: .tile),
            "https://api.mapbox.com/v4/mapbox.satellite/1/1/0@2x.webp?access_token=pk.T&style=x")
    }

    // MARK: - --rewrite and --allow-host

    func testRewrite() throws {
        let policy = URLPolicy(
            accessToken: "pk.T",
            rewrites: [
                try URLRewrite(argument: "https://tiles.example.com/=http://127.0.0.1:8181/mirror/"),
                try URLRewrite(argument: "mapbox://tiles/=http://127.0.0.1:8181/mb/"),
                try URLRewrite(argument: "https://api.mapbox.com/fonts/=http://127.0.0.1:8181/f/"),
            ])
        XCTAssertEqual(
            try policy.requestURL(for: "https://tiles.example.com/a/1.pbf?k=v", kind: .tile),
            "http://127.0.0.1:8181/mirror/a/1.pbf?k=v")
        XCTAssertEqual(
            try policy.requestURL(for: "mapbox://tiles/a/1/0/0.png", kind: .tile),
            "http://127.0.0.1:8181/mb/a/1/0/0.png")  // stored form: no token needed
        XCTAssertEqual(
            try policy.requestURL(for: "mapbox://fonts/m/A/0-255.pbf", kind: .glyphs),
            "http://127.0.0.1:8181/f/v1/m/A/0-255.pbf?access_token=pk.T")  // expanded form
        XCTAssertEqual(
            try policy.requestURL(for: "https://other.test/x", kind: .style), "https://other.test/x")
        XCTAssertEqual(try URLRewrite(argument: "a=b=c"), URLRewrite(from: "a", to: "b=c"))
        XCTAssertThrowsError(try URLRewrite(argument: "=x"))
        XCTAssertThrowsError(try URLRewrite(argument: "no-equals"))
        let toFile = URLPolicy(rewrites: [URLRewrite(from: "https://t.test/", to: "file:///srv/")])
        XCTAssertThrowsError(try toFile.requestURL(for: "https://t.test/a.pbf", kind: .tile)) {
            XCTAssertEqual(
                $0 as? HTTPError, .unsupportedScheme(url: "file:///srv/a.pbf"))
        }
    }

    func testAllowHost() throws {
        let policy = URLPolicy(accessToken: "pk.T", allowedHosts: ["127.0.0.1:8181", "Tiles.Example.com"])
        XCTAssertNoThrow(try policy.checkContact("http://127.0.0.1:8181/a"))
        XCTAssertNoThrow(try policy.checkContact("https://user@TILES.example.com:8443/a"))
        XCTAssertThrowsError(try policy.checkContact("http://127.0.0.1:9999/a")) {
            XCTAssertEqual(
                $0 as? HTTPError, .hostNotAllowed(host: "127.0.0.1", url: "http://127.0.0.1:9999/a"))
        }
        XCTAssertThrowsError(try policy.requestURL(for: "mapbox://styles/a/b", kind: .style)) {
            XCTAssertEqual(
                $0 as? HTTPError,
                .hostNotAllowed(
                    host: "api.mapbox.com", url: "https://api.mapbox.com/styles/v1/a/b?access_token=pk.T"))
            XCTAssertTrue("\($0)".contains("api.mapbox.com"))
        }
        XCTAssertNoThrow(try URLPolicy(allowedHosts: ["::1"]).checkContact("http://[::1]:80/x"))
        XCTAssertThrowsError(try URLPolicy().checkContact("file:///etc/passwd"))
        // An entry with a port names that port, also when the URL leaves it to the scheme.
        XCTAssertNoThrow(try URLPolicy(allowedHosts: ["example.org:443"]).checkContact("https://example.org/x"))
        XCTAssertThrowsError(try URLPolicy(allowedHosts: ["example.org:443"]).checkContact("http://example.org/x"))
    }

    /// The HTTP client's check of every host it contacts, redirect targets included, with the
    /// host and port as libcurl parsed them. An entry with a port allows only that port: it used
    /// to allow the host on any port, so a redirect could reach another server on an allowed host.
    func testAllowsHostAndPortAsTheClientAsks() {
        let policy = URLPolicy(allowedHosts: ["127.0.0.1:8181", "Tiles.Example.com", "[::1]:8080"])
        XCTAssertTrue(policy.allows(host: "127.0.0.1", port: 8181))
        XCTAssertFalse(policy.allows(host: "127.0.0.1", port: 8182))
        XCTAssertTrue(policy.allows(host: "tiles.example.COM", port: 1234))
        XCTAssertTrue(policy.allows(host: "[::1]", port: 8080))
        XCTAssertFalse(policy.allows(host: "[::1]", port: 80))
        XCTAssertFalse(policy.allows(host: "localhost", port: 8181))
        XCTAssertTrue(URLPolicy().allows(host: "anything", port: 1))
    }
}
