import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs import DB FILE.pmtiles`: archives PackFS wrote and archives the reference Python
/// writer wrote become packs; damaged ones change nothing.
final class PMTilesImportTests: PMTilesTestCase {
    var mount: MountHelper?

    override func tearDown() {
        mount?.unmount()
        super.tearDown()
    }

    /// Export one source, import the archive as a new pack: the same tiles, stored as the
    /// archive holds them (gzipped), shown by a real mount through the pack's minimal style.
    func testAnExportedArchiveComesBackAsAPackTheMountShows() throws {
        let base = try downloadHelsinki()
        let archive = temp.path("omt.pmtiles")
        let exported = try packfs("export", db, "helsinki", archive, "--source", "openmaptiles")
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let unknown = try packfs("export", db, "helsinki", temp.path("x.pmtiles"), "--source", "roads")
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(unknown.stderr, """
            packfs: pack "helsinki" has no tiled source "roads" (its tiled sources: "openmaptiles", "land", "relief")

            """)
        let original = try packTiles("helsinki", template: "\(base)/tiles/helsinki/{z}/{x}/{y}.pbf").filter { !$0.value.isEmpty }
        let imported = try packfs("import", db, archive, "--name", "helsinki again")
        XCTAssertEqual(imported.status, 0, imported.stderr)
        // Zooms 0-4 of this pack hold empty tiles only, which the archive leaves out.
        XCTAssertEqual(imported.stdout, "pack \"helsinki again\": \(original.count) tiles, zooms 5 to 14\n")
        XCTAssertEqual(original.keys.compactMap { Int($0.prefix { $0 != "/" }) }.min(), 5)
        let template = "pmtiles://helsinki%20again/{z}/{x}/{y}"
        XCTAssertTrue(try packTiles("helsinki again", template: template) == original, "the imported tiles differ")
        try checkStoredAsTheArchiveHoldsThem(template)
        let status = JSONValue.parse(Data(try packfs("status", db, "helsinki again", "--json").stdout.utf8))
        XCTAssertEqual(status?["state"], .string("complete"))
        XCTAssertEqual(status?["metadata"]?["imported_from"], .object(["file": .string("omt.pmtiles"), "format": .string("pmtiles")]))
        try checkTheMountShows("helsinki again", original)
    }

    private func checkStoredAsTheArchiveHoldsThem(_ template: String) throws {
        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        defer { try? database.close() }
        let set = try XCTUnwrap(database.packTileSets(of: database.pack(named: "helsinki again").id).first)
        XCTAssertEqual(set.urlTemplate, template)
        try database.forEachPackTile(set) { z, x, y, data in
            XCTAssertEqual(try data.decoded()?.prefix(2), Data([0x1F, 0x8B]), "\(z)/\(x)/\(y) is stored gzipped")
        }
        let tileJSON = try XCTUnwrap(database.resource(url: "pmtiles://helsinki%20again/tiles.json")?.data.decoded())
        let fixture = try XCTUnwrap(JSONValue.parse(Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/helsinki.json"))))
        XCTAssertEqual(JSONValue.parse(tileJSON)?["vector_layers"], fixture["vector_layers"])
        XCTAssertEqual(JSONValue.parse(tileJSON)?["tiles"], .array([.string(template)]))
    }

    private func checkTheMountShows(_ name: String, _ tiles: [String: Data]) throws {
        try MountHelper.requireFUSE()
        let mount = try MountHelper(in: temp)
        self.mount = mount
        let mounted = try packfs("mount", db, mount.path)
        XCTAssertEqual(mounted.status, 0, mounted.stderr)
        XCTAssertTrue(eventually(timeout: 10) { mount.isMounted }, "no mount at \(mount.path)")
        let pack = mount.path + "/packs/" + name
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: pack)).isSuperset(of: ["style.json", "sources"]), true)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: pack + "/sources"), [name])
        for (key, content) in tiles {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(pack)/\(key).pbf")), content, "primary \(key)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(pack)/sources/\(name)/\(key).pbf")), content, key)
        }
        let style = try XCTUnwrap(JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: pack + "/style.json"))))
        XCTAssertNotNil(style["sources"]?[name], "\(style)")
        XCTAssertFalse(style["layers"]?.array?.isEmpty ?? true)
        mount.unmount()
    }

    /// 21,845 tiles the reference writer laid out (leaf directories, shared contents): every
    /// one stored with exactly the bytes written, the metadata in the pack's TileJSON.
    func testAnArchiveTheReferenceWriterMadeImports() throws {
        let path = temp.path("python grid.pmtiles")
        let written = try writeWithPython(path, maxZoom: 7)
        XCTAssertGreaterThan(try Self.leafDirectoriesLength(path), 0, "the reference writer made leaves")
        let start = Date()
        let outcome = try packfs("import", db, path)
        print(String(format: "PMTilesImportTests: %d tiles imported in %.2f s", written.count, Date().timeIntervalSince(start)))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "pack \"python grid\": 21845 tiles, zooms 0 to 7\n")
        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        defer { try? database.close() }
        let pack = try database.pack(named: "python grid")
        let set = try XCTUnwrap(database.packTileSets(of: pack.id).first)
        var stored: [String: Data] = [:]
        try database.forEachPackTile(set) { z, x, y, data in stored["\(z)/\(x)/\(y)"] = try data.decoded() }
        XCTAssertEqual(stored.count, written.count)
        XCTAssertTrue(stored == written, "the stored tiles differ from the bytes the writer wrote")
        let tileJSON = try XCTUnwrap(JSONValue.parse(XCTUnwrap(database.resource(url: "pmtiles://python%20grid/tiles.json")?.data.decoded())))
        XCTAssertEqual(tileJSON["name"], .string("python grid"))
        XCTAssertEqual(tileJSON["attribution"], .string("written by pmtiles.writer"))
        XCTAssertEqual(tileJSON["vector_layers"], .array([.object(["id": .string("grid"), "fields": .object([:])])]))
        XCTAssertEqual(tileJSON["format"], .string("pbf"))
        XCTAssertEqual(tileJSON["bounds"], .array([-180, -85.0511, 180, 85.0511].map(JSONValue.number)))
        XCTAssertEqual(tileJSON["center"], .array([0, 0, 2].map(JSONValue.number)))
        XCTAssertEqual(pack.definitionText, """
            {"style_url":"pmtiles://python%20grid","min_zoom":0.0,"max_zoom":7.0,"pixel_ratio":1.0,\
            "include_ideographs":false,"bounds":[-85.0511,-180.0,85.0511,180.0]}
            """)
    }

    /// Each kind of damage is refused with a message that says what is wrong, and the database
    /// keeps every byte: also when the damage lies in the last leaf directory, found after the
    /// tiles of every other leaf were stored in the import's transaction. The archive: zooms 0-5
    /// (1,365 tiles) in six leaf directories of 256 entries, the reference writer's own leaves
    /// made small (a pyramid whose root outgrows 16 KiB, zoom 7, took this test 90 s under
    /// ThreadSanitizer; `testAnArchiveTheReferenceWriterMadeImports` imports one).
    func testDamagedArchivesAreRefusedAndTheDatabaseIsUntouched() throws {
        let good = temp.path("grid.pmtiles")
        _ = try writeWithPython(good, maxZoom: 5, leafEntries: 256)
        XCTAssertGreaterThan(try Self.leafDirectoriesLength(good), 0, "the archive has leaf directories")
        XCTAssertEqual(try packfs("import", db, good, "--name", "taken").status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let leavesEnd = Int(Self.u64(bytes, at: 40) + Self.u64(bytes, at: 48))
        let cases: [(String, (inout Data) -> Void, String)] = [
            ("taken", { _ in }, "a pack named \"taken\" already exists"),
            ("cut", { $0 = $0.prefix($0.count - 100) }, "lies past the end of the file"),
            ("v2", { $0[7] = 2 }, "v2.pmtiles: PMTiles version 2; PackFS reads version 3"),
            ("brotli", { $0[98] = 3 }, "brotli.pmtiles: tiles compressed with brotli cannot be served"),
            ("avif", { $0[99] = 5 }, "avif.pmtiles: tile type avif is not one a pack shows"),
            ("leaf", { $0[leavesEnd - 12] ^= 0xFF }, "leaf.pmtiles: the leaf directory at "),
        ]
        for (name, damage, words) in cases {
            var data = bytes
            damage(&data)
            let path = temp.path("\(name).pmtiles")
            try data.write(to: URL(fileURLWithPath: path))
            let outcome = try packfs("import", db, path)
            XCTAssertEqual(outcome.status, 1, name)
            XCTAssertTrue(outcome.stderr.hasPrefix("packfs: ") && outcome.stderr.contains(words), "\(name): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, outcome.stderr)
            XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "\(name) changed the database")
        }
    }

    static func u64(_ data: Data, at offset: Int) -> UInt64 {
        data[offset..<(offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    static func leafDirectoriesLength(_ path: String) throws -> UInt64 {
        u64(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(127), at: 48)
    }
}
