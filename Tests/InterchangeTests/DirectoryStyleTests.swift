import Basics
import Foundation
import Interchange
import PackStore
import TestSupport
import XCTest

/// The exported style.json and tiles.json: every URL relative to the document that holds it (so
/// a page in DIR loads `style.json` and each URL resolves to an exported file), or absolute under
/// `--base-url`; the sources inlined and XYZ. Also a pack with no stored style.
final class DirectoryStyleTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .mount }
    var out: String { temp.path("out") }

    func testEveryURLIsRelativeToItsDocumentAndNamesAnExportedFile() throws {
        let fixture = try DirectoryFixture.make(in: database)
        _ = try DirectoryExport(database: database, pack: fixture.pack).write(to: out)
        let style = try document("style.json")
        let sources = try XCTUnwrap(style["sources"]?.object)
        XCTAssertEqual(sources["vec"]?["tiles"], .array([.string("sources/vec/{z}/{x}/{y}.pbf")]))
        XCTAssertNil(sources["vec"]?["url"], "inlined: no TileJSON to fetch first")
        XCTAssertNil(sources["vec"]?["scheme"], "the tree numbers rows XYZ")
        XCTAssertEqual(sources["vec"]?["maxzoom"], .number(2), "from the stored TileJSON")
        XCTAssertEqual(sources["vec"]?["attribution"], .string("test"))
        XCTAssertEqual(sources["ras"]?["tiles"], .array([.string("sources/ras/{z}/{x}/{y}.png")]))
        XCTAssertEqual(sources["line/s"]?["data"], .string("sources/line%252Fs/data.geojson"), "the escaped name, encoded")
        XCTAssertEqual(sources["img"]?["url"], .string("sources/img/image.png"))
        XCTAssertEqual(style["glyphs"], .string("glyphs/{fontstack}/{range}.pbf"))
        XCTAssertEqual(style["sprite"], .array([.object(["id": .string("icons/poi"), "url": .string("sprites/icons%252Fpoi")])]))
        XCTAssertEqual(style["layers"]?.array?.count, 2, "layers as stored")

        // What a web server and a renderer make of each URL: filled in, resolved against the
        // document, percent-decoded to a path.
        XCTAssertTrue(exists(resolving: "sources/vec/1/0/1.pbf", in: ""))
        XCTAssertTrue(exists(resolving: "sources/line%252Fs/data.geojson", in: ""))
        XCTAssertTrue(exists(resolving: "sprites/icons%252Fpoi@2x.png", in: ""))
        XCTAssertTrue(exists(resolving: "glyphs/Noto%20Sans%20Regular/256-511.pbf", in: ""))

        let vec = try document("sources/vec/tiles.json")
        XCTAssertEqual(vec["tiles"], .array([.string("../../sources/vec/{z}/{x}/{y}.pbf")]))
        XCTAssertNil(vec["scheme"])
        XCTAssertEqual(vec["vector_layers"]?.array?.first?["id"], .string("water"), "the stored TileJSON's other fields")
        XCTAssertTrue(exists(resolving: "../../sources/vec/0/0/0.pbf", in: "sources/vec/"))
        let ras = try document("sources/ras/tiles.json")
        XCTAssertEqual(ras["tiles"], .array([.string("../../sources/ras/{z}/{x}/{y}.png")]))
        XCTAssertEqual(ras["maxzoom"], .number(1))
    }

    func testABaseURLMakesEveryURLAbsolute() throws {
        let fixture = try DirectoryFixture.make(in: database)
        let base = "https://cdn.example/packs/small"
        _ = try DirectoryExport(database: database, pack: fixture.pack, baseURL: base).write(to: out)
        let style = try document("style.json")
        XCTAssertEqual(style["sources"]?["vec"]?["tiles"], .array([.string(base + "/sources/vec/{z}/{x}/{y}.pbf")]))
        XCTAssertEqual(style["sources"]?["line/s"]?["data"], .string(base + "/sources/line%252Fs/data.geojson"))
        XCTAssertEqual(style["sources"]?["img"]?["url"], .string(base + "/sources/img/image.png"))
        XCTAssertEqual(style["glyphs"], .string(base + "/glyphs/{fontstack}/{range}.pbf"))
        XCTAssertEqual(style["sprite"]?.array?.first?["url"], .string(base + "/sprites/icons%252Fpoi"))
        XCTAssertEqual(try document("sources/vec/tiles.json")["tiles"], .array([.string(base + "/sources/vec/{z}/{x}/{y}.pbf")]))
        XCTAssertEqual(try document("sources/ras/tiles.json")["tiles"], .array([.string(base + "/sources/ras/{z}/{x}/{y}.png")]))

        _ = try DirectoryExport(database: database, pack: fixture.pack, baseURL: base + "/").write(to: temp.path("again"))
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: temp.path("again/style.json"))),
            try Data(contentsOf: URL(fileURLWithPath: out + "/style.json")), "one / whether the base ends in one or not")
    }

    /// An app's pack whose style row is gone: the synthetic style the mount shows, its tiles
    /// relative to the directory.
    func testAPackWithoutAStoredStyleGetsItsSyntheticStyle() throws {
        let pack = try database.createPack(
            name: "app", definition: RegionDefinition(
                styleURL: "https://maps.example/styles/gone.json",
                area: .bounds(Bounds(west: -180, south: -85, east: 180, north: 85)), minZoom: 0, maxZoom: 1))
        let tile = try Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/land/1/0/0.pbf"))
        try database.write { batch in
            let key = TileKey(urlTemplate: "https://maps.example/data/land/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 1, x: 0, y: 0)
            try batch.link(tile: batch.putTile(key, data: .encoding(tile), headers: CacheHeaders()), to: pack.id)
        }
        let summary = try DirectoryExport(database: database, pack: pack).write(to: out)
        XCTAssertEqual(summary.tiles, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/sources/land/1/0/0.pbf")), tile)
        let style = try document("style.json")
        XCTAssertEqual(style["sources"]?["land"]?["tiles"], .array([.string("sources/land/{z}/{x}/{y}.pbf")]))
        let layers = style["layers"]?.array?.compactMap { $0["id"]?.string } ?? []
        XCTAssertTrue(layers.contains("land/land/fill"), "a layer per vector layer of the tile: \(layers)")
        XCTAssertEqual(try document("sources/land/tiles.json")["tiles"], .array([.string("../../sources/land/{z}/{x}/{y}.pbf")]))
    }

    private func document(_ path: String) throws -> JSONValue {
        try JSONValue.parsing(Data(contentsOf: URL(fileURLWithPath: out + "/" + path)))
    }

    /// Whether the relative `url`, met in a document in `directory` of the export, names a file.
    private func exists(resolving url: String, in directory: String) -> Bool {
        let resolved = URL(string: url, relativeTo: URL(string: "http://host/export/" + directory))?.absoluteURL.path
        guard let path = resolved, path.hasPrefix("/export/") else { return false }
        return FileManager.default.fileExists(atPath: out + "/" + path.dropFirst("/export/".count))
    }
}
