import Downloader
import Foundation
import HTTP
import PackStore
import TestSupport
import XCTest

/// Where a document may send PackFS (docs/design.md §4): a URL a style, a TileJSON or a redirect
/// names reaches a loopback or private address only on the region's style origin or a host
/// `--allow-host` names. The origin here is a fault server on 127.0.0.1 serving a style from its
/// overlay; the "internal" service is a second server on another port, which must hear nothing.
final class AddressReachTests: PackDownloadTestCase {
    var internalService: TestServer!
    var origin: TestServer { server! }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try TestServer.faultServer(["--gzip"])
        internalService = try TestServer.faultServer()
    }

    override func tearDown() {
        internalService?.stop()
        super.tearDown()
    }

    /// The internal service's base URL under another spelling of its host.
    func internalBase(_ host: String = "127.0.0.1") -> String { "http://\(host):\(internalService.port)" }

    /// Serves `styles/reach.json` from the origin: the fixture style after `edit`.
    func serveStyle(_ edit: (inout [String: Any]) throws -> Void) throws -> RegionDefinition {
        let bright = try Data(contentsOf: ProjectPaths.world.appendingPathComponent("styles/bright.json"))
        var style = try XCTUnwrap(JSONSerialization.jsonObject(with: bright) as? [String: Any])
        try edit(&style)
        try overlay("styles/reach.json", JSONSerialization.data(withJSONObject: style))
        var definition = helsinki(origin.baseURL)
        definition.styleURL = origin.url("/styles/reach.json")
        return definition
    }

    func overlay(_ path: String, _ data: Data) throws {
        let file = URL(fileURLWithPath: origin.overlayPath).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    static func source(_ style: [String: Any], _ id: String) -> [String: Any] {
        (style["sources"] as? [String: Any])?[id] as? [String: Any] ?? [:]
    }

    static func setSource(_ style: inout [String: Any], _ id: String, _ source: [String: Any]) {
        var sources = style["sources"] as? [String: Any] ?? [:]
        sources[id] = source
        style["sources"] = sources
    }

    /// The download ends in `error` naming a URL under `refusedPrefix` and the rule; the
    /// internal service heard nothing and nothing from it was stored.
    func assertRefused(_ definition: RegionDefinition, _ refusedPrefix: String, scope: String = "loopback",
                       options: DownloadOptions = DownloadOptions(), file: StaticString = #filePath, line: UInt = #line) throws {
        let status = try download(definition, options: options)
        XCTAssertEqual(status.state, .error, file: file, line: line)
        let error = status.error ?? ""
        XCTAssertTrue(error.hasPrefix("refused \(refusedPrefix)"), error, file: file, line: line)
        XCTAssertTrue(error.contains("a \(scope) address, which only the style's own origin or a host named by "
                                     + "--allow-host may reach"), error, file: file, line: line)
        XCTAssertEqual(try internalService.arrivals().count, 0, "the internal service heard nothing", file: file, line: line)
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? database.close() }
        let urls = try database.resourceURLs(of: database.pack(named: "helsinki").id)
        XCTAssertFalse(urls.contains { $0.contains(":\(internalService.port)/") }, "\(urls)", file: file, line: line)
        try FileManager.default.removeItem(atPath: path)
    }

    func testEveryURLAStyleNamesIsRefusedOnAnotherLoopbackPort() throws {
        let inside = internalBase()
        let edits: [(String, (inout [String: Any]) -> Void)] = [
            ("\(inside)/sprites/bright", { $0["sprite"] = "\(inside)/sprites/bright" }),
            ("\(inside)/fonts/", { $0["glyphs"] = "\(inside)/fonts/{fontstack}/{range}.pbf" }),
            ("\(inside)/tiles/helsinki.json", { Self.setSource(&$0, "openmaptiles", ["type": "vector", "url": "\(inside)/tiles/helsinki.json"]) }),
            ("\(inside)/tiles/land/", { style in
                var land = Self.source(style, "land")
                land["tiles"] = ["\(inside)/tiles/land/{z}/{x}/{y}.pbf"]
                Self.setSource(&style, "land", land)
            }),
            ("\(inside)/data/trails.geojson", { Self.setSource(&$0, "trails", ["type": "geojson", "data": "\(inside)/data/trails.geojson"]) }),
            ("\(inside)/images/overlay.png", { Self.setSource(&$0, "overlay", [
                "type": "image", "url": "\(inside)/images/overlay.png",
                "coordinates": [[24.0, 61.0], [26.0, 61.0], [26.0, 59.5], [24.0, 59.5]]]) }),
            ("\(inside)/tiles/helsinki.pmtiles", { Self.setSource(&$0, "openmaptiles", [
                "type": "vector", "url": "pmtiles://\(inside)/tiles/helsinki.pmtiles"]) }),
        ]
        for (refused, edit) in edits {
            try assertRefused(try serveStyle(edit), refused)
        }
    }

    /// A TileJSON on the style's own origin whose tiles are on the internal service.
    func testATileJSONOnTheOriginCannotPointElsewhere() throws {
        let tileJSON = try String(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/helsinki.json"), encoding: .utf8)
        try overlay("tiles/reach.json", Data(tileJSON.replacingOccurrences(of: "{base}/tiles/helsinki/", with: "\(internalBase())/tiles/helsinki/").utf8))
        let definition = try serveStyle { Self.setSource(&$0, "openmaptiles", ["type": "vector", "url": "{base}/tiles/reach.json"]) }
        try assertRefused(definition, "\(internalBase())/tiles/helsinki/")
    }

    /// Names that resolve to loopback, and the numeric spellings libcurl accepts.
    func testEverySpellingOfALoopbackAddressIsCaught() throws {
        let hosts = ["localhost", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.0.0.2", "[::1]", "[::ffff:127.0.0.1]"]
        for host in hosts {
            let definition = try serveStyle { $0["sprite"] = "\(self.internalBase(host))/sprites/bright" }
            var options = DownloadOptions()
            options.http.retry.maxAttempts = 1
            let status = try download(definition, options: options)
            XCTAssertEqual(status.state, .error, host)
            XCTAssertTrue(status.error?.contains("a loopback address") == true, "\(host): \(status.error ?? "")")
            XCTAssertEqual(try internalService.arrivals().count, 0, host)
            try FileManager.default.removeItem(atPath: path)
        }
    }

    /// A redirect from the style's origin to another port: the hop is judged by its own URL.
    func testARedirectFromTheOriginToAnotherPortIsRefused() throws {
        origin.stop()
        server = try TestServer.faultServer(["--gzip", "--redirect", "/sprites/bright.json=\(internalBase())/sprites/bright.json"])
        try assertRefused(helsinki(origin.baseURL), "\(internalBase())/sprites/bright.json")
    }

    /// A PMTiles archive on the style's origin whose range requests are redirected elsewhere.
    func testAnArchiveOnTheOriginCannotRedirectElsewhere() throws {
        origin.stop()
        let archive = "/tiles/helsinki.pmtiles"
        server = try TestServer.faultServer(["--gzip", "--redirect", "\(archive)=\(internalBase())\(archive)"])
        var definition = helsinki(origin.baseURL)
        definition.styleURL = origin.url("/styles/bright-pmtiles.json")
        try assertRefused(definition, "\(internalBase())\(archive)")
    }

    /// `--allow-host` naming the internal service opens it, and the pack completes from both.
    func testAllowHostOpensAnotherLoopbackService() throws {
        let definition = try serveStyle { $0["sprite"] = "\(self.internalBase())/sprites/bright" }
        var options = DownloadOptions()
        options.urlPolicy = URLPolicy(allowedHosts: ["127.0.0.1:\(origin.port)", "127.0.0.1:\(internalService.port)"])
        let status = try download(definition, options: options)
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        XCTAssertEqual(Set(try internalService.settledAccessLog().map(\.uri)).count, 4, "the four sprite files")
    }

    /// The style's own origin on loopback is the demo's case: it downloads as before.
    func testTheStyleOriginOnLoopbackDownloadsWhole() throws {
        let status = try download(helsinki(origin.baseURL))
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        try assertStoredContentMatchesOrigin(origin)
    }

    /// `packfs estimate` follows the same rule: a TileJSON on the internal service is refused.
    func testAnEstimateIsRefusedToo() throws {
        let definition = try serveStyle { Self.setSource(&$0, "openmaptiles", ["type": "vector", "url": "\(self.internalBase())/tiles/helsinki.json"]) }
        XCTAssertThrowsError(try Estimate.make(for: definition, options: DownloadOptions())) { error in
            XCTAssertTrue("\(error)".contains("a loopback address"), "\(error)")
        }
        XCTAssertEqual(try internalService.arrivals().count, 0)
    }
}

/// The scope of each address, as bytes: the rule's table (docs/design.md §4).
final class AddressScopeTests: XCTestCase {
    func ipv6(_ text: String) -> [UInt8] {
        var address = in6_addr()
        XCTAssertEqual(inet_pton(AF_INET6, text, &address), 1, text)
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    func testIPv4() {
        let cases: [([UInt8], AddressScope)] = [
            ([127, 0, 0, 1], .loopback), ([127, 255, 1, 2], .loopback), ([10, 1, 2, 3], .private),
            ([172, 16, 0, 1], .private), ([172, 31, 255, 255], .private), ([172, 32, 0, 1], .public),
            ([192, 168, 1, 1], .private), ([169, 254, 169, 254], .linkLocal), ([100, 64, 0, 1], .shared),
            ([100, 127, 255, 255], .shared), ([100, 128, 0, 1], .public), ([0, 0, 0, 0], .unspecified),
            ([224, 0, 0, 1], .multicast), ([239, 255, 255, 250], .multicast), ([255, 255, 255, 255], .broadcast),
            ([240, 0, 0, 1], .reserved), ([8, 8, 8, 8], .public), ([93, 184, 216, 34], .public),
        ]
        for (address, scope) in cases { XCTAssertEqual(AddressScope(address: address), scope, "\(address)") }
    }

    func testIPv6() {
        let cases: [(String, AddressScope)] = [
            ("::", .unspecified), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .private),
            ("::ffff:8.8.8.8", .public), ("fe80::1", .linkLocal), ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
            ("ff02::1", .multicast), ("64:ff9b::7f00:1", .loopback), ("64:ff9b::808:808", .public),
            ("2002:7f00:1::1", .loopback), ("::127.0.0.1", .reserved), ("fec0::1", .reserved),
            ("2001:4860:4860::8888", .public), ("2a00:1450::1", .public),
        ]
        for (text, scope) in cases { XCTAssertEqual(AddressScope(address: ipv6(text)), scope, text) }
        XCTAssertEqual(AddressScope(address: []), .reserved, "another family")
    }

    func testText() {
        XCTAssertEqual(AddressScope.text(of: [127, 0, 0, 1]), "127.0.0.1")
        XCTAssertEqual(AddressScope.text(of: ipv6("::1")), "::1")
        XCTAssertEqual(AddressScope.text(of: ipv6("::ffff:127.0.0.1")), "::ffff:127.0.0.1")
        XCTAssertEqual(AddressScope.text(of: ipv6("fe80::1:0:0:2")), "fe80::1:0:0:2")
        XCTAssertEqual(AddressScope.text(of: ipv6("1:0:0:2::")), "1:0:0:2::")
        XCTAssertEqual(AddressScope.text(of: ipv6("2001:db8:1:2:3:4:5:6")), "2001:db8:1:2:3:4:5:6")
    }
}
