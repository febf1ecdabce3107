import Foundation
import TestSupport
import XCTest

/// The mount's promise to renderers: MapLibre Native (pymgl) renders a pack's style.json from the
/// mount, with no network, into the same picture, pixel for pixel, as the origin server's style.
///
/// Needs pymgl (`pip install pymgl`) and Mesa's EGL (Debian libegl-mesa0 libgl1-mesa-dri), run
/// headless with EGL_PLATFORM=surfaceless; scripts/setup.sh installs them. Skips without them
/// locally, fails in CI. The pictures stay in a temporary directory whose path the test prints.
final class RenderTests: DaemonMountTestCase {
    static let script = ProjectPaths.root.appendingPathComponent("Tests/render/render_compare.py").path
    /// Every view render_compare.py draws by default.
    static let views = ["z15.5", "z14", "z12", "z4"]

    /// The tests only read from nginx: one for both.
    override class var sharesServer: Bool { true }

    override func setUpWithError() throws {
        try Self.requirePymgl()
        try super.setUpWithError()
    }

    func testThePackRendersFromTheMountAsTheOriginDoes() throws {
        try renderCompare(style: "bright.json", pixelRatio: 1)
    }

    /// Every kind of source a pack holds (a `{ratio}` raster at pixel ratio 2, a TMS source, two
    /// sources sharing one template, GeoJSON data, an image, a sprite array with an id that holds
    /// a `/`), all read from the mount.
    func testEveryKindOfSourceRendersFromTheMount() throws {
        try renderCompare(style: "variety.json", pixelRatio: 2)
    }

    /// A pack whose vector tiles came from a PMTiles archive by range requests
    /// (`pmtiles://`): drawn from the mount as the z/x/y origin's style is drawn (the renderer
    /// here predates MapLibre Native's own PMTiles support, and the tiles are the same).
    func testAPackFromAPMTilesArchiveRendersFromTheMount() throws {
        try renderCompare(style: "bright-pmtiles.json", pixelRatio: 1, reference: "bright.json")
    }

    /// Downloads the fixture `style` (central Helsinki, zooms 0-14), mounts the database and
    /// compares MapLibre Native's pictures of the origin's style (`reference`, by default the
    /// same) and of the mount's style.json.
    private func renderCompare(style: String, pixelRatio: Double, reference: String? = nil) throws {
        let region = try regionFile("helsinki.region", style: server.url("/styles/" + style),
                                    extra: "\"pixel_ratio\": \(pixelRatio)")
        let download = try packfs(["download", db, "helsinki", region], timeout: 120)
        XCTAssertEqual(download.status, 0, download.text)
        try mountPackFS()

        // Nothing in the mount's style may reach the network: then every glyph, sprite and tile
        // MapLibre draws for the candidate was read from the mount.
        let stylePath = mount.path + "/packs/helsinki/style.json"
        let text = try String(contentsOfFile: stylePath, encoding: .utf8)
        XCTAssertFalse(text.contains("http://") || text.contains("https://"), text)
        XCTAssertTrue(text.contains("\"file://\(mount.path)/packs/helsinki/glyphs/{fontstack}/{range}.pbf\""), text)

        let pictures = try keptDirectory("render")
        print("RenderTests: \(style) pictures in \(pictures.url.path)")
        let origin = server.url("/styles/" + (reference ?? style))
        let compare = try Command.run("/usr/bin/env", ["python3", Self.script, origin,
                                                       "file://" + stylePath, pictures.url.path],
                                      environment: ["EGL_PLATFORM": "surfaceless"], timeout: 300)
        print(compare.text)
        XCTAssertEqual(compare.status, 0, compare.text)
        for view in Self.views {
            XCTAssertTrue(compare.text.contains("\n\(view) zoom ") || compare.text.hasPrefix("\(view) zoom "),
                          "no line for view \(view)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: pictures.path("\(view)-candidate.png")), view)
        }
        XCTAssertTrue(compare.text.contains("OK: \(Self.views.count) views identical"), compare.text)
    }

    /// Skips when pymgl cannot be imported (fails in CI, where setup.sh installed it).
    static func requirePymgl(file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import pymgl"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        let started = (try? probe.run()) != nil
        if started { probe.waitUntilExit() }
        guard !started || probe.terminationStatus != 0 else { return }
        let message = "pymgl is not importable by python3 (pip install pymgl; apt-get install libegl-mesa0 libgl1-mesa-dri)"
        if isCI { XCTFail(message, file: file, line: line) }
        throw XCTSkip(message)
    }
}
