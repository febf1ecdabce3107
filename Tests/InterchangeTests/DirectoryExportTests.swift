import Basics
import Foundation
import Interchange
import PackStore
import TestSupport
import XCTest

/// `DirectoryExport`: the files a small pack becomes (every one, byte for byte), and what an
/// export refuses or leaves behind when it fails.
final class DirectoryExportTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    var out: String { temp.path("out") }

    func testTheTreeHoldsEveryFileWithItsRawBytes() throws {
        let fixture = try DirectoryFixture.make(in: database)
        let summary = try DirectoryExport(database: database, pack: fixture.pack).write(to: out + "/")
        let written = try files(under: out)
        let documents: Set = ["style.json", "sources/vec/tiles.json", "sources/ras/tiles.json"]
        XCTAssertEqual(Set(written.keys), Set(fixture.files.keys).union(documents))
        for (path, data) in fixture.files {
            XCTAssertEqual(written[path], data, "\(path): the stored content, raw (a gzipped tile inflated)")
        }
        XCTAssertEqual(summary.tiles, 3, "no-content tiles are no files")
        XCTAssertEqual(summary.skippedTiles, 1, "a row outside the zoom's grid names no path")
        XCTAssertEqual(summary.files, written.count)
        XCTAssertEqual(summary.bytes, Int64(written.values.map(\.count).reduce(0, +)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.contains("partial") }, [],
                       "the staging directory became DIR")
    }

    func testAnEmptyDirectoryIsReplacedAndAnythingElseRefused() throws {
        let fixture = try DirectoryFixture.make(in: database)
        let export = try DirectoryExport(database: database, pack: fixture.pack)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        XCTAssertNoThrow(try export.write(to: out))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/style.json"))

        XCTAssertThrowsError(try export.write(to: out)) { error in
            XCTAssertTrue("\(error)".contains("is not empty"), "\(error)")
        }
        let file = temp.path("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try export.write(to: file)) { error in
            XCTAssertTrue("\(error)".contains("is not a directory"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), Data("x".utf8), "left as it was")
        XCTAssertThrowsError(try export.write(to: temp.path("no/such/parent/out"))) { error in
            XCTAssertTrue("\(error)".contains("does not exist"), "\(error)")
        }
    }

    /// A tile that cannot be decoded stops the export, naming it, and nothing is left: no DIR, no
    /// staging directory.
    func testAFailedExportLeavesNothing() throws {
        let fixture = try DirectoryFixture.make(in: database)
        try database.write { batch in
            let key = TileKey(urlTemplate: "https://maps.example/vec/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 2, x: 1, y: 1)
            let bad = StoredData(bytes: Data("not zlib at all".utf8), compressed: true)
            try batch.link(tile: batch.putTile(key, data: bad, headers: CacheHeaders()), to: fixture.pack.id)
        }
        XCTAssertThrowsError(try DirectoryExport(database: database, pack: fixture.pack).write(to: out)) { error in
            XCTAssertTrue("\(error)".contains("tile 2/1/2 of source vec"), "\(error)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { !$0.hasPrefix("packs.db") }
        XCTAssertEqual(left, [], "neither DIR nor its staging directory")
    }

    /// Zooms a tile path cannot name (63, where `1 << z` is negative; 64 and -1) are rows left
    /// out and counted, like a row outside its zoom's grid.
    func testARowAtAZoomNoPathNamesIsSkipped() throws {
        let fixture = try DirectoryFixture.make(in: database)
        try database.write { batch in
            for z in [63, 64, -1, 32] {
                let key = TileKey(urlTemplate: "https://maps.example/vec/{z}/{x}/{y}.pbf", pixelRatio: 1, z: z, x: 0, y: 0)
                try batch.link(tile: batch.putTile(key, data: .encoding(Data("tile".utf8)), headers: CacheHeaders()), to: fixture.pack.id)
            }
        }
        let summary = try DirectoryExport(database: database, pack: fixture.pack).write(to: out)
        XCTAssertEqual(summary.tiles, 3)
        XCTAssertEqual(summary.skippedTiles, 5, "the fixture's row outside the grid and the four zooms")
    }

    func testAPackWithNothingToShowIsRefused() throws {
        let pack = try database.createPack(
            name: "empty", definition: RegionDefinition(
                styleURL: "https://maps.example/none.json", area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)),
                minZoom: 0, maxZoom: 1))
        XCTAssertThrowsError(try DirectoryExport(database: database, pack: pack).write(to: out)) { error in
            XCTAssertTrue("\(error)".contains("nothing to export"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testABaseURLMustBeAnHTTPURLWithoutQuery() throws {
        let fixture = try DirectoryFixture.make(in: database)
        let refused = ["relative/dir", "ftp://host/dir", "file:///srv/maps", "https://exa mple/", "https://host/dir?v=1", "https://host/#a"]
        for bad in refused {
            XCTAssertThrowsError(try DirectoryExport(database: database, pack: fixture.pack, baseURL: bad), bad) { error in
                XCTAssertTrue("\(error)".hasPrefix("--base-url \(bad): "), "\(error)")
            }
        }
        XCTAssertNoThrow(try DirectoryExport(database: database, pack: fixture.pack, baseURL: "http://127.0.0.1:8080/maps"))
    }

    /// Every regular file below `root`, by path relative to it.
    func files(under root: String) throws -> [String: Data] {
        var found: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            found[path] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + path))
        }
        return found
    }
}
