import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Issue 32: the mount as a web app. `packfs mount --web-base URL --web-assets DIR` shows the web
/// page (the checkout's web/ and MapLibre GL JS, assembled by scripts/web-assets.sh) at its root;
/// nginx publishes the mount at URL with docs/web.md's location block. Headless Chromium opens
/// URL/ while one pack is complete and another downloads from an origin that answers every
/// request 3 s late (Tests/web/page_check.py): both are listed, the downloading one's progress
/// rises, the complete one is drawn from its web-style.json with its coverage on the map and no
/// error event, a pack made meanwhile joins the list and leaves it when removed, and the page
/// fits a phone's width. Every request nginx logged was answered 200 or 304 and was under URL,
/// and the browser's own network log shows none elsewhere.
final class WebPageMountTests: WebSiteMountTestCase {
    func testThePageShowsEveryPackLiveAndDrawsOneWithNothingFromElsewhere() throws {
        _ = try WebSite.requireBrowser()
        let assets = try WebSite.assemblePage(into: temp.path("web"))
        // nginx's own root holds nothing: everything the page asks for must come from the mount.
        let root = temp.url.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let site = try WebSite(root: root, state: temp.url.appendingPathComponent("site-nginx"),
                               alias: (prefix: "/packfs", directory: mount.path))
        self.site = site
        let base = site.url("/packfs")
        // The slow origin's 3 s answers are not stalls.
        try mountPackFS(["--web-base", base, "--web-assets", assets, "--stall-timeout", "30"])
        let shown = try FileManager.default.contentsOfDirectory(atPath: mount.path).sorted()
        XCTAssertEqual(shown, ["index.html", "maplibre-gl-LICENSE.txt", "maplibre-gl.css", "maplibre-gl.js", "packfs.css",
                               "packfs.js", "packs", "packs.json", "status.json"])
        for name in ["index.html", "packfs.js", "packfs.css", "maplibre-gl-LICENSE.txt"] {
            let checkout = FileManager.default.contents(atPath: ProjectPaths.root.appendingPathComponent("web/" + name).path)
            XCTAssertEqual(FileManager.default.contents(atPath: mount.path + "/" + name), checkout, "\(name) is the checkout's")
        }

        try copyRegion(try region(origin: try XCTUnwrap(server)), to: "helsinki")
        waitForState("helsinki")
        // The whole world (364 tiles of three sources, 661 resources) from
        // an origin answering every request 3 s late: a couple of minutes of arriving batches.
        let slow = try TestServer.faultServer(["--rate-slow", "1.0", "--slow-seconds", "3"])
        slowOrigin = slow
        try copyRegion(try region(origin: slow, bounds: "-180, -85, 180, 85"), to: "world")
        XCTAssertEqual(waitForState("world", ["active"]), "active")
        // Planned (its total known), so that the page's bar is a fraction that moves.
        XCTAssertTrue(eventually(timeout: 120) { progress("world")?["required_resources_is_precise"] == .bool(true) },
                      "the world pack was never planned: \(String(describing: progress("world")))")

        let pictures = try keptDirectory("web-page")  // kept: a person looks at it
        let script = WebSite.pages.appendingPathComponent("page_check.py").path
        let browser = try Command.run("/usr/bin/env", [
            "python3", script, base + "/", pictures.path("page.png"), "--complete", "helsinki", "--downloading", "world",
            "--packs", packs, "--add", "extra=" + (try region(origin: try XCTUnwrap(server), bounds: "24.94, 60.165, 24.95, 60.17")),
        ], timeout: 300)
        print("WebPageMountTests: \(browser.text) screenshots \(pictures.path("page.png")), \(pictures.path("page-phone.png"))")
        XCTAssertEqual(browser.status, 0, browser.text)
        let seen = try JSONValue.parsing(Data(browser.text.split(separator: "\n").last.map { Array($0.utf8) } ?? []))
        XCTAssertEqual(seen["failures"], .array([]), browser.text)
        XCTAssertEqual(seen["selected"], .string("helsinki"))
        XCTAssertEqual(seen["coverage"]?["layer"], .bool(true))
        XCTAssertEqual(seen["added"], .bool(true))
        XCTAssertEqual(seen["removed"], .bool(true))
        XCTAssertEqual(seen["outside"], .array([]))
        let first = Double(seen["downloading_first"]?["completed"]?.string ?? "") ?? .infinity
        let last = Double(seen["downloading_last"]?["completed"]?.string ?? "") ?? 0
        XCTAssertGreaterThan(last, first, "the downloading pack's progress rose on the page")
        XCTAssertEqual(progress("world")?["state"], .string("active"), "the other pack downloaded throughout")

        let requests = try site.requestsBeforeNow()
        XCTAssertEqual(requests.filter { ![200, 304].contains($0.status) }.map { "\($0.status) \($0.uri)" }, [],
                       "every request answered 200 or 304")
        XCTAssertEqual(requests.map(\.uri).filter { !$0.hasPrefix("/packfs/") }, [], "every request under the web base")
        let uris = Set(requests.map(\.uri))
        for uri in ["/packfs/", "/packfs/packfs.js", "/packfs/packfs.css", "/packfs/maplibre-gl.js", "/packfs/maplibre-gl.css",
                    "/packfs/packs.json", "/packfs/status.json", "/packfs/packs/helsinki/web-style.json",
                    "/packfs/packs/helsinki/coverage.geojson"] {
            XCTAssertTrue(uris.contains(uri), "\(uri) was not requested: \(uris.sorted())")
        }
        XCTAssertTrue(uris.contains { $0.hasPrefix("/packfs/packs/helsinki/sources/openmaptiles/") && $0.hasSuffix(".pbf") },
                      "no tile was requested: \(uris.sorted())")
    }

    /// A `--web-assets` directory without the page fails the mount with one line naming the file.
    func testAWebAssetsDirectoryWithoutThePageFailsTheMount() throws {
        let outcome = try packfs(["mount", db, mount.path, "--web-base", "http://127.0.0.1:1/packfs",
                                  "--web-assets", temp.path("nowhere")])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.text.trimmingCharacters(in: .whitespacesAndNewlines),
                       "packfs: --web-assets: \(temp.path("nowhere"))/index.html: No such file or directory")
        XCTAssertFalse(mount.isMounted)
    }

    /// Zooms 0-14 of `bounds` (central Helsinki by default) from `origin`'s fixture style.
    private func region(origin: TestServer, bounds: String = "24.93, 60.16, 24.96, 60.18") throws -> String {
        let path = temp.path("region-\(origin.port)-\(bounds.hashValue).json")
        try """
            {"style": "\(origin.baseURL)/styles/bright.json", "bounds": [\(bounds)], "maxzoom": 14}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
