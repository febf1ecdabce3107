import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

@testable import Interchange

/// The writer both importers share (ImportedPack): the pack's shape, and all or nothing.
final class PMTilesImportedPackTests: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .command }

    let metadata: JSONValue = .object([
        "name": .string("Trails"), "attribution": .string("(c) somebody"), "format": .string("pbf"),
        "bounds": .array([24.9, 60.1, 25.0, 60.2].map(JSONValue.number)),
        "vector_layers": .array([.object(["id": .string("roads"), "fields": .object([:])])]),
        "tiles": .array([.string("http://elsewhere/{z}/{x}/{y}")]), "scheme": .string("tms"),
    ])

    func testThePackHasTheSharedShape() throws {
        let summary = try ImportedPack.write(
            into: database, name: "my trails", scheme: .pmtiles, fileName: "trails.pmtiles", tileJSON: metadata
        ) { sink in
            try sink((z: 3, x: 4, y: 2, data: Data("a".utf8)))
            try sink((z: 5, x: 17, y: 9, data: Data([0x1F, 0x8B, 1, 2])))
            try sink((z: 5, x: 17, y: 9, data: Data([0x1F, 0x8B, 1, 2])))
        }
        XCTAssertEqual(summary.tiles, 2)
        XCTAssertEqual(summary.zooms, 3...5)
        let pack = try database.pack(named: "my trails")
        XCTAssertEqual(pack.definitionText, """
            {"style_url":"pmtiles://my%20trails","min_zoom":3.0,"max_zoom":5.0,"pixel_ratio":1.0,\
            "include_ideographs":false,"bounds":[60.1,24.9,60.2,25.0]}
            """)
        XCTAssertEqual(pack.metadata, .object([
            "imported_from": .object(["file": .string("trails.pmtiles"), "format": .string("pmtiles")])
        ]))
        let key = TileKey(urlTemplate: "pmtiles://my%20trails/{z}/{x}/{y}", pixelRatio: 1, z: 5, x: 17, y: 9)
        XCTAssertEqual(try database.tile(key)?.data.decoded(), Data([0x1F, 0x8B, 1, 2]))
        let tileJSON = try XCTUnwrap(database.resource(url: "pmtiles://my%20trails/tiles.json"))
        XCTAssertEqual(tileJSON.kind, .source)
        let document = try XCTUnwrap(JSONValue.parse(XCTUnwrap(tileJSON.data.decoded())))
        XCTAssertEqual(document["tiles"], .array([.string("pmtiles://my%20trails/{z}/{x}/{y}")]))
        XCTAssertEqual(document["scheme"], .string("xyz"))
        XCTAssertEqual(document["tilejson"], .string("3.0.0"))
        XCTAssertEqual(document["minzoom"], .number(3))
        XCTAssertEqual(document["maxzoom"], .number(5))
        XCTAssertEqual(document["vector_layers"], metadata["vector_layers"])
        XCTAssertEqual(document["attribution"], .string("(c) somebody"))
        XCTAssertEqual(try database.resourceURLs(of: pack.id), ["pmtiles://my%20trails/tiles.json"])
        XCTAssertEqual(try database.status(of: pack.id).state, .complete)
        XCTAssertEqual(try database.progress(of: pack.id).counts.tiles, 2)
    }

    func testBadMetadataValuesGiveWayToTheTilesAndTheWorld() throws {
        let bad: JSONValue = .object([
            "bounds": .array([.number(10), .number(50), .number(5), .number(40)]), "minzoom": .number(2.5),
            "maxzoom": .string("9"), "attribution": .number(3), "center": .array([.string("x")]),
        ])
        try ImportedPack.write(into: database, name: "x", scheme: .mbtiles, fileName: "x.mbtiles", tileJSON: bad) { sink in
            try sink((z: 0, x: 0, y: 0, data: Data("t".utf8)))
        }
        let pack = try database.pack(named: "x")
        XCTAssertTrue(pack.definitionText.hasSuffix(#""bounds":[-85.0511,-180.0,85.0511,180.0]}"#), pack.definitionText)
        let document = try XCTUnwrap(JSONValue.parse(XCTUnwrap(database.resource(url: "mbtiles://x/tiles.json")?.data.decoded())))
        XCTAssertEqual(document.object?.keys.sorted(), ["maxzoom", "minzoom", "scheme", "tilejson", "tiles"])
    }

    func testAnyFailureLeavesTheDatabaseAsItWas() throws {
        try ImportedPack.write(into: database, name: "taken", scheme: .pmtiles, fileName: "t.pmtiles", tileJSON: metadata) { sink in
            try sink((z: 0, x: 0, y: 0, data: Data("t".utf8)))
        }
        let before = try database.databaseCounts()
        let failures: [(String, ((ImportedPack.Tile) throws -> Void) throws -> Void, String)] = [
            ("taken", { try $0((z: 0, x: 0, y: 0, data: Data())) }, "already exists"),
            ("deep", { try $0((z: 25, x: 0, y: 0, data: Data())) }, "outside zooms 0 to 24"),
            ("off", { sink in
                try sink((z: 1, x: 1, y: 1, data: Data("ok".utf8)))
                try sink((z: 2, x: 4, y: 0, data: Data()))
            }, "tile 2/4/0 lies outside zoom 2's grid"),
            ("empty", { _ in }, "holds no tiles"),
            ("thrown", { sink in
                try sink((z: 1, x: 1, y: 1, data: Data("ok".utf8)))
                throw InterchangeError.damaged("f.pmtiles", detail: "a leaf directory is cut short")
            }, "cut short"),
        ]
        for (name, tiles, words) in failures {
            XCTAssertThrowsError(try ImportedPack.write(
                into: database, name: name, scheme: .pmtiles, fileName: "f.pmtiles", tileJSON: metadata, tiles: tiles)
            ) { error in
                XCTAssertTrue(String(describing: error).contains(words), "\(name): \(error)")
            }
        }
        XCTAssertEqual(try database.databaseCounts(), before)
        XCTAssertEqual(try database.packs().map(\.name), ["taken"])
    }
}
