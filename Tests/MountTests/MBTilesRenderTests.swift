import Foundation
import TestSupport
import XCTest

/// MBTiles in and out, judged by MapLibre Native (pymgl) and its own `mbtiles://` file source:
/// Tests/interchange/mbtiles_render.py renders a pack's style.json from a real mount, then the
/// same style with sources read from MBTiles files, and wants the pictures identical.
///
/// - Export: the Helsinki pack's three tiled sources, each exported to a file, draw what the
///   mount draws.
/// - Import: the fixture files imported as packs (vector and raster) render from the mount
///   through the pack's minimal style, as the same style over the original files does.
///
/// Needs FUSE and pymgl (see RenderTests): skips without them locally, fails in CI. The
/// pictures stay in a temporary directory whose path the test prints.
final class MBTilesRenderTests: DaemonMountTestCase {
    let packfs = Packfs.path

    static let script = ProjectPaths.root.appendingPathComponent("Tests/interchange/mbtiles_render.py").path
    static let fixtures = ProjectPaths.fixtures.appendingPathComponent("mbtiles")
    /// Central Helsinki, where the fixture's tiles are.
    static let helsinki = ["z15.5:15.5:24.944:60.171", "z14:14:24.944:60.171", "z12:12:24.944:60.171", "z10:10:24.944:60.171"]

    /// The export test starts nginx; the import test needs no origin.
    override class func makeServer() throws -> TestServer? { nil }

    override func setUpWithError() throws {
        try RenderTests.requirePymgl()
        try super.setUpWithError()
    }

    func testExportedFilesRenderAsThePackDoesFromTheMount() throws {
        server = try TestServer.nginx()
        let region = try regionFile("helsinki.region")
        try expectSuccess(packfs, ["download", db, "helsinki", region])
        let out = temp.path("helsinki.mbtiles")
        try expectSuccess(packfs, ["export", db, "helsinki", out])
        try mountPackFS()
        let sources = ["openmaptiles", "land", "relief"].flatMap { ["--source", "\($0)=\(temp.path("helsinki.\($0).mbtiles"))"] }
        // render_compare.py's views and its guards' thresholds for bright.json.
        try renderCompare("packs/helsinki/style.json", sources + ["--min-colours", "200", "--min-drawn", "0.3"], views: 4)
    }

    /// helsinki.mbtiles (vector, gzipped tiles) and geography-class-png.mbtiles (raster, tiles
    /// behind a view) imported as packs, mounted, and drawn through their minimal styles.
    func testImportedFilesRenderFromTheMount() throws {
        let vector = Self.fixtures.appendingPathComponent("helsinki.mbtiles").path
        let raster = Self.fixtures.appendingPathComponent("geography-class-png.mbtiles").path
        try expectSuccess(packfs, ["import", db, vector])
        try expectSuccess(packfs, ["import", db, raster, "--name", "geography"])
        let refresh = try Command.run(packfs, ["refresh", db, "helsinki"])
        XCTAssertEqual(refresh.status, 1, refresh.text)
        XCTAssertTrue(refresh.text.contains("imported from a file"), refresh.text)
        try mountPackFS()
        let listing = try FileManager.default.contentsOfDirectory(atPath: mount.path + "/packs/helsinki/sources")
        XCTAssertEqual(listing, ["helsinki"])
        let views = Self.helsinki.flatMap { ["--view", $0] }
        try renderCompare("packs/helsinki/style.json", ["--source", "helsinki=\(vector)"] + views, views: 4)
        let world = ["z0:0:0:20", "z1:1:10:40", "z2.5:2.5:10:50"].flatMap { ["--view", $0] }
        try renderCompare(
            "packs/geography/style.json",
            ["--source", "geography=\(raster)", "--min-colours", "200", "--min-drawn", "0.9"] + world, views: 3)
    }

    /// Runs mbtiles_render.py on `style` (a path in the mount) with `arguments`.
    private func renderCompare(_ style: String, _ arguments: [String], views: Int) throws {
        let pictures = try keptDirectory("mbtiles-render")
        print("MBTilesRenderTests: \(style) pictures in \(pictures.url.path)")
        let compare = try Command.run(
            "/usr/bin/env", ["python3", Self.script, mount.path + "/" + style, pictures.url.path] + arguments,
            environment: ["EGL_PLATFORM": "surfaceless"], timeout: 300)
        print(compare.text)
        XCTAssertEqual(compare.status, 0, compare.text)
        XCTAssertTrue(compare.text.contains("OK: \(views) views identical"), compare.text)
    }

    private func expectSuccess(_ executable: String, _ arguments: [String], line: UInt = #line) throws {
        let outcome = try Command.run(executable, arguments, timeout: 120)
        XCTAssertEqual(outcome.status, 0, "\(arguments.first ?? ""): \(outcome.text)", line: line)
    }
}
