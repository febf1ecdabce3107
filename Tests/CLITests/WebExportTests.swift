import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Issue 11's acceptance for `packfs export DB NAME DIR/`: the Helsinki pack, exported, served by
/// a second nginx on 127.0.0.1 straight from the export, renders in MapLibre GL JS inside headless
/// Chromium (Tests/web: the page, the selenium driver, the server script). The map must go idle
/// with no error event, nginx must have answered every request with 200, and style, tiles,
/// glyphs and sprites must be among those requests; likewise an export with `--base-url`, and
/// one of the fixture style with every kind of source. The screenshots stay in a temporary
/// directory whose path the test prints.
///
/// Needs nginx, Debian's chromium and chromium-driver, and selenium and maplibre from PyPI
/// (scripts/setup.sh installs them): skips without them locally, fails in CI.
final class WebExportTests: CLITestCase {
    var origin: TestServer?
    var site: WebSite?
    var siteRoot: URL { temp.url.appendingPathComponent("site") }

    static let web = WebSite.pages
    /// The view: central Helsinki at zoom 15, where every source, sprite and label font is drawn.
    static let view = "lng=24.9443&lat=60.1716&zoom=15"

    override func setUpWithError() throws {
        try super.setUpWithError()
        let scripts = try WebSite.requireBrowser()
        origin = try TestServer.nginx()
        try FileManager.default.createDirectory(at: siteRoot, withIntermediateDirectories: true)
        for file in [Self.web.appendingPathComponent("index.html")] + scripts {
            try FileManager.default.copyItem(at: file, to: siteRoot.appendingPathComponent(file.lastPathComponent))
        }
        site = try WebSite(root: siteRoot, state: temp.url.appendingPathComponent("site-nginx"))
    }

    /// Downloads the fixture `style` over central Helsinki (zooms 0-14) as pack `helsinki`.
    private func download(style: String = "bright.json", pixelRatio: Int = 1) throws {
        let origin = try XCTUnwrap(origin)
        let region = temp.path("helsinki.json")
        try """
            {"style": "\(origin.baseURL)/styles/\(style)", "bounds": [24.93, 60.16, 24.96, 60.18],
             "minzoom": 0, "maxzoom": 14, "pixel_ratio": \(pixelRatio)}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        let download = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(download.status, 0, download.stderr)
    }

    override func tearDown() {
        site?.stop()
        origin?.stop()
        super.tearDown()
    }

    func testARelativeExportRendersInABrowser() throws {
        let site = try XCTUnwrap(site)
        try download()
        let style = try export(to: "helsinki")
        for url in try urls(in: style) {
            XCTAssertFalse(url.contains("://") || url.hasPrefix("/"), "relative to the directory: \(url)")
        }
        XCTAssertEqual(style["glyphs"]?.string, "glyphs/{fontstack}/{range}.pbf")
        XCTAssertEqual(style["sprite"]?.string, "sprites/default")
        XCTAssertEqual(style["sources"]?["openmaptiles"]?["tiles"], .array([.string("sources/openmaptiles/{z}/{x}/{y}.pbf")]))
        try render(site.url("/index.html?style=helsinki/style.json&\(Self.view)"), under: "/helsinki/", screenshot: "relative")
    }

    /// The fixture style with every kind of source (TMS rows, ids and a sprite id that hold `/`
    /// or `@`, GeoJSON data, an image, a `{ratio}` raster at pixel ratio 2): names escaped in the
    /// tree and encoded again in the URLs reach the right files through a real web server.
    func testEveryKindOfSourceRendersInABrowser() throws {
        let site = try XCTUnwrap(site)
        try download(style: "variety.json", pixelRatio: 2)
        _ = try export(to: "variety", tiles: 45)
        try render(site.url("/index.html?style=variety/style.json&lng=24.9443&lat=60.1716&zoom=13"), under: "/variety/",
                   screenshot: "variety", expecting: [
                       "sources/osm%252Ftms/", "sources/relief%402x/", "sources/openmaptiles/", "sources/same-template/",
                       "sources/trails/data.geojson", "sources/overlay/image.png", "sprites/icons%252Fpoi", "glyphs/",
                   ])
    }

    func testABaseURLExportRendersInABrowser() throws {
        let site = try XCTUnwrap(site)
        try download()
        let base = site.url("/cdn/maps/helsinki")
        try FileManager.default.createDirectory(at: siteRoot.appendingPathComponent("cdn/maps"), withIntermediateDirectories: true)
        let style = try export(to: "cdn/maps/helsinki", "--base-url", base)
        let named = try urls(in: style)
        XCTAssertEqual(named.count, 5, "three sources' tiles, glyphs, sprite: \(named)")
        for url in named {
            XCTAssertTrue(url.hasPrefix(base + "/"), "absolute under the base URL: \(url)")
        }
        XCTAssertEqual(style["sprite"]?.string, base + "/sprites/default")
        let tileJSONFile = siteRoot.appendingPathComponent("cdn/maps/helsinki/sources/openmaptiles/tiles.json")
        let tileJSON = try JSONValue.parsing(Data(contentsOf: tileJSONFile))
        XCTAssertEqual(tileJSON["tiles"], .array([.string(base + "/sources/openmaptiles/{z}/{x}/{y}.pbf")]))
        // The page leaves absolute URLs as they are: these must lead to the exported files.
        try render(site.url("/index.html?style=cdn/maps/helsinki/style.json&\(Self.view)"), under: "/cdn/maps/helsinki/",
                   screenshot: "base-url")
    }

    /// Runs `packfs export` into `path` below the site's root; the exported style.json, parsed.
    private func export(to path: String, tiles: Int = 25, _ options: String...) throws -> JSONValue {
        let directory = siteRoot.appendingPathComponent(path).path + "/"
        let started = Date()
        let outcome = try packfs(["export", db, "helsinki", directory] + options)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains(": \(tiles) tiles, "), outcome.stdout)
        print("WebExportTests: export took \(String(format: "%.3f", seconds)) s: \(outcome.stdout)", terminator: "")
        let style = try Data(contentsOf: URL(fileURLWithPath: directory + "style.json"))
        XCTAssertFalse(String(decoding: style, as: UTF8.self).contains("127.0.0.1:\(origin?.port ?? 0)"), "nothing names the origin")
        return try JSONValue.parsing(style)
    }

    /// Every URL a style names: each source's `tiles`, `url` and `data`, `glyphs`, `sprite`.
    private func urls(in style: JSONValue) throws -> [String] {
        var urls: [String] = []
        for source in try XCTUnwrap(style["sources"]?.object).values {
            urls += source["tiles"]?.array?.compactMap(\.string) ?? []
            urls += [source["url"]?.string, source["data"]?.string].compactMap { $0 }
        }
        urls += [style["glyphs"]?.string, style["sprite"]?.string].compactMap { $0 }
        return urls
    }

    /// Opens `page` in headless Chromium until the map is idle; then every request nginx answered
    /// must be a 200, and the style and a file of each of `expecting` under `prefix` among them.
    private func render(_ page: String, under prefix: String, screenshot name: String,
                        expecting parts: [String] = ["sources/openmaptiles/", "glyphs/", "sprites/default"]) throws {
        let site = try XCTUnwrap(site)
        let pictures = try keptDirectory("web")  // kept: a person looks at it
        let screenshot = pictures.path("\(name).png")
        let started = Date()
        let browser = try Command.run(
            "/usr/bin/env", ["python3", Self.web.appendingPathComponent("browser_check.py").path, page, screenshot],
            timeout: 240)
        print("WebExportTests: browser run took \(String(format: "%.1f", Date().timeIntervalSince(started))) s: \(browser.text)")
        print("WebExportTests: screenshot \(screenshot)")
        XCTAssertEqual(browser.status, 0, browser.text)
        let result = try JSONValue.parsing(Data(browser.text.split(separator: "\n").last.map { Array($0.utf8) } ?? []))
        XCTAssertEqual(result["idle"], .bool(true), browser.text)
        XCTAssertEqual(result["errors"], .array([]), browser.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot))

        let requests = try site.requestsBeforeNow()
        let failed = requests.filter { $0.status != 200 }
        XCTAssertEqual(failed.map { "\($0.status) \($0.uri)" }, [], "every request answered 200")
        let paths = requests.map(\.uri).filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        XCTAssertTrue(paths.contains("style.json"), "\(paths)")
        for part in parts {
            XCTAssertTrue(paths.contains { $0.hasPrefix(part) }, "nothing under \(part) was requested: \(paths)")
        }
        let others = requests.map(\.uri).filter {
            !$0.hasPrefix(prefix) && !$0.hasPrefix("/index.html") && !$0.hasPrefix("/maplibre-gl.")
        }
        XCTAssertEqual(others, [], "the page asked for nothing else")
    }
}
