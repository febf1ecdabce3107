import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs export DB NAME DIR/` as a user runs it: what it prints, and its refusals (bad usage
/// exits 2, a failure 1, and neither touches what is there).
final class DirectoryExportCommandTests: CLITestCase {
    let tile = ProjectPaths.world.appendingPathComponent("tiles/land/1/0/0.pbf")

    /// An app's pack with one tile and no style row: the export shows it with its synthetic style.
    func makePack() throws {
        let database = try OfflineDatabase.open(path: db)
        let pack = try database.createPack(
            name: "app", definition: RegionDefinition(
                styleURL: "https://maps.example/styles/gone.json",
                area: .bounds(Bounds(west: -180, south: -85, east: 180, north: 85)), minZoom: 0, maxZoom: 1))
        let data = try Data(contentsOf: tile)
        try database.write { batch in
            let key = TileKey(urlTemplate: "https://maps.example/data/land/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 1, x: 0, y: 0)
            try batch.link(tile: batch.putTile(key, data: .encoding(data), headers: CacheHeaders()), to: pack.id)
        }
        try database.close()
    }

    func testExportPrintsWhatItWrote() throws {
        try makePack()
        let out = temp.path("web")
        let outcome = try packfs("export", db, "app", out + "/")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("app -> \(out)/: 1 tiles, 3 files, "), outcome.stdout)
        XCTAssertTrue(outcome.stdout.hasSuffix(" KiB\n"), outcome.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/sources/land/1/0/0.pbf")), try Data(contentsOf: tile))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/style.json"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/sources/land/tiles.json"))
    }

    func testRefusalsSayWhyAndLeaveEverythingAsItWas() throws {
        try makePack()
        let out = temp.path("web")
        let source = try packfs("export", db, "app", out, "--source", "land")
        XCTAssertEqual(source.status, 2, "bad usage")
        XCTAssertTrue(source.stderr.contains("--source applies to .mbtiles and .pmtiles"), source.stderr)
        let base = try packfs("export", db, "app", out, "--base-url", "ftp://host/maps")
        XCTAssertEqual(base.status, 2, "bad usage")
        XCTAssertTrue(base.stderr.contains("--base-url ftp://host/maps: must be an absolute http or https URL"), base.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))

        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/index.html"))
        let full = try packfs("export", db, "app", out)
        XCTAssertEqual(full.status, 1)
        XCTAssertEqual(full.stderr, "packfs: \(out) is not empty (1 entries): export to a new or empty directory\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["index.html"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.contains("partial") }, [])
    }
}
