import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Issue 22's live mount as a web origin: `packfs mount --web-base URL` and nginx publishing the
/// mount at URL with docs/web.md's location block (Tests/web/serve-directory.sh --alias). MapLibre GL
/// JS, in headless Chromium, renders a pack from its `web-style.json` while another pack
/// downloads into the same mount: the map goes idle with no error event, and nginx answered
/// every request with 200.
final class WebMountTests: WebSiteMountTestCase {
    func testAPackRendersInABrowserFromTheLiveMountWhileAnotherDownloads() throws {
        let scripts = try WebSite.requireBrowser()
        let root = temp.url.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for file in [WebSite.pages.appendingPathComponent("index.html")] + scripts {
            try FileManager.default.copyItem(at: file, to: root.appendingPathComponent(file.lastPathComponent))
        }
        let site = try WebSite(root: root, state: temp.url.appendingPathComponent("site-nginx"),
                               alias: (prefix: "/packfs", directory: mount.path))
        self.site = site
        let base = site.url("/packfs")
        try mountPackFS(["--web-base", base])
        try copyRegion(try region(origin: try XCTUnwrap(server)), to: "helsinki")
        waitForState("helsinki")

        let style = try JSONValue.parsing(Data(contentsOf: URL(fileURLWithPath: packs + "/helsinki/web-style.json")))
        let pack = base + "/packs/helsinki/"
        XCTAssertEqual(style["sources"]?["openmaptiles"]?["tiles"], .array([.string(pack + "sources/openmaptiles/{z}/{x}/{y}.pbf")]))
        XCTAssertEqual(style["glyphs"], .string(pack + "glyphs/{fontstack}/{range}.pbf"))
        XCTAssertEqual(style["sprite"], .string(pack + "sprites/default"))

        // Another pack downloads meanwhile: the whole world (the land source's 341 tiles, its
        // resources, the Helsinki tiles) from an origin that answers every request 5 s late, so
        // that batches keep arriving for a few minutes.
        let slow = try TestServer.faultServer(["--rate-slow", "1.0", "--slow-seconds", "5"])
        slowOrigin = slow
        try copyRegion(try region(origin: slow, bounds: "-180, -85, 180, 85"), to: "slow")
        XCTAssertEqual(waitForState("slow", ["active"]), "active")

        let page = site.url("/index.html?style=/packfs/packs/helsinki/web-style.json&lng=24.9443&lat=60.1716&zoom=15")
        let pictures = try keptDirectory("web-mount")  // kept: a person looks at it
        let browser = try Command.run(
            "/usr/bin/env", ["python3", WebSite.pages.appendingPathComponent("browser_check.py").path, page,
                             pictures.path("mount.png")], timeout: 240)
        print("WebMountTests: \(browser.text) screenshot \(pictures.path("mount.png"))")
        XCTAssertEqual(browser.status, 0, browser.text)
        let result = try JSONValue.parsing(Data(browser.text.split(separator: "\n").last.map { Array($0.utf8) } ?? []))
        XCTAssertEqual(result["idle"], .bool(true), browser.text)
        XCTAssertEqual(result["errors"], .array([]), browser.text)
        XCTAssertEqual(progress("slow")?["state"], .string("active"), "the other pack downloaded throughout")

        let requests = try site.requestsBeforeNow()
        XCTAssertEqual(requests.filter { $0.status != 200 }.map { "\($0.status) \($0.uri)" }, [], "every request answered 200")
        let paths = requests.map(\.uri).filter { $0.hasPrefix("/packfs/packs/helsinki/") }
        for part in ["web-style.json", "sources/openmaptiles/", "glyphs/", "sprites/default"] {
            XCTAssertTrue(paths.contains { $0.contains("/helsinki/" + part) }, "nothing under \(part) was requested: \(paths)")
        }
    }

    /// Zooms 0-14 of `bounds` (central Helsinki by default) from `origin`'s fixture style.
    private func region(origin: TestServer, bounds: String = "24.93, 60.16, 24.96, 60.18") throws -> String {
        let path = temp.path("region-\(origin.port).json")
        try """
            {"style": "\(origin.baseURL)/styles/bright.json", "bounds": [\(bounds)], "maxzoom": 14}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
