import Basics
import Foundation
import PackStore
import SQLiteDB
import XCTest

final class PackTests: StoreTestCase {
    func testDefinitionAndDescriptionAreStoredInMapLibreFormat() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(
            name: "helsinki", definition: sampleDefinition(), metadata: .object(["trip": .string("weekend"), "n": .number(3)]))
        try database.close()
        let row = try raw().read { try Row.fetchOne($0, sql: "SELECT definition, description FROM regions WHERE id = ?", arguments: [pack.id.rawValue])! }
        XCTAssertEqual(row["definition"] as String, """
            {"style_url":"http://127.0.0.1:8181/styles/bright.json","min_zoom":0.0,"max_zoom":14.0,"pixel_ratio":1.0,\
            "include_ideographs":false,"bounds":[60.16,24.93,60.18,24.96]}
            """)
        XCTAssertEqual(String(data: row["description"] as Data, encoding: .utf8), #"{"name":"helsinki","metadata":{"n":3,"trip":"weekend"}}"#)
    }

    func testUnboundedMaxZoomAndGeometryDefinitions() throws {
        let line = Geometry.lineString([Position(longitude: 24, latitude: 60), Position(longitude: 25.5, latitude: 60.25)])
        let definition = RegionDefinition(styleURL: "mapbox://styles/u/s", area: .geometry(line), minZoom: 2, maxZoom: nil, pixelRatio: 2, includeIdeographs: true)
        XCTAssertEqual(definition.mapLibreJSON, """
            {"style_url":"mapbox://styles/u/s","min_zoom":2.0,"pixel_ratio":2.0,"include_ideographs":true,\
            "geometry":{"type":"LineString","coordinates":[[24.0,60.0],[25.5,60.25]]}}
            """)
        XCTAssertEqual(try RegionDefinition(mapLibreJSON: definition.mapLibreJSON), definition)
        XCTAssertEqual(try RegionDefinition(mapLibreJSON: sampleDefinition().mapLibreJSON), sampleDefinition())
    }

    func testNamesAreValidatedAndUnique() throws {
        let database = try OfflineDatabase.open(path: path)
        _ = try database.createPack(name: "a", definition: sampleDefinition())
        for bad in ["", ".hidden", "a/b", "nul\0", "new\nline", "tab\t", String(repeating: "é", count: 124) + "x"] {
            XCTAssertThrowsError(try database.createPack(name: bad, definition: sampleDefinition())) { error in
                guard case .invalidPackName = error as? StoreError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNoThrow(try database.createPack(name: String(repeating: "é", count: 124), definition: sampleDefinition()))
        XCTAssertThrowsError(try database.createPack(name: "a", definition: sampleDefinition())) {
            XCTAssertEqual($0 as? StoreError, .duplicatePackName("a"))
        }
        let b = try database.createPack(name: "b", definition: sampleDefinition())
        XCTAssertThrowsError(try database.renamePack(b.id, to: "a")) { XCTAssertEqual($0 as? StoreError, .duplicatePackName("a")) }
    }

    func testRenameAndMetadataKeepTheRest() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(name: "a", definition: sampleDefinition(), metadata: .object(["k": .string("v")]))
        try database.renamePack(pack.id, to: "b")
        XCTAssertEqual(try database.pack(id: pack.id).name, "b")
        XCTAssertEqual(try database.pack(named: "b").metadata, .object(["k": .string("v")]))
        XCTAssertThrowsError(try database.pack(named: "a")) { XCTAssertEqual($0 as? StoreError, .packNotFound("a")) }
        var changed = sampleDefinition()
        changed.maxZoom = 10
        XCTAssertEqual(try database.definePack(name: "b", definition: changed, metadata: .string("new")).id, pack.id)
        XCTAssertEqual(try database.pack(named: "b").metadata, .string("new"))
        XCTAssertEqual(try database.pack(id: pack.id).definition, changed)
    }

    func testPacksMadeByAppsAreNamedFromTheirDescription() throws {
        try OfflineDatabase.open(path: path).close()
        let definition = sampleDefinition().mapLibreJSON
        try raw().write { db in
            for description in [#"{"name":"Trip"}"#, "opaque app bytes", #"{"name":"Trip"}"#, #"{"name":"../x"}"#] {
                try db.execute(sql: "INSERT INTO regions (definition, description) VALUES (?, ?)", arguments: [definition, Data(description.utf8)])
            }
            try db.execute(sql: "INSERT INTO regions (definition, description) VALUES (?, NULL)", arguments: [definition])
        }
        let names = try OfflineDatabase.open(path: path, mode: .readOnly).packs().map(\.name)
        XCTAssertEqual(names, ["Trip", "region-2", "region-3", "region-4", "region-5"])
        let database = try OfflineDatabase.open(path: path)
        try database.renamePack(RegionID(2), to: "renamed")
        let renamed = try database.pack(named: "renamed")
        XCTAssertEqual(JSONValue.parse(renamed.description!)?["app_description"], .string("opaque app bytes"))
    }

    func testRemovingAPackKeepsTilesSharedWithAnother() throws {
        let database = try OfflineDatabase.open(path: path)
        let a = try database.createPack(name: "a", definition: sampleDefinition())
        let b = try database.createPack(name: "b", definition: sampleDefinition())
        try database.setAmbientLimit(0)
        try database.write { batch in
            for x in 0..<10 {
                let id = try batch.putTile(self.tileKey(5, x, 1), data: .encoding(self.noise(500, seed: UInt64(x))), headers: CacheHeaders())
                try batch.link(tile: id, to: a.id)
                if x < 4 { try batch.link(tile: id, to: b.id) }
            }
            let style = try batch.putResource(url: "http://h/style.json", kind: .style, data: .encoding(Data("{}".utf8)), headers: CacheHeaders())
            try batch.link(resource: style, to: a.id)
            try batch.link(resource: style, to: b.id)
        }
        XCTAssertEqual(try database.progress(of: a.id).counts.tiles, 10)
        try database.setStatus(PackStatus(state: .complete), of: a.id)
        try database.removePack(a.id)
        XCTAssertThrowsError(try database.pack(id: a.id))
        XCTAssertEqual(try database.progress(of: b.id).counts.tiles, 4)
        XCTAssertEqual(try database.progress(of: b.id).counts.resources, 1)
        for x in 0..<10 {
            XCTAssertEqual(try database.tile(tileKey(5, x, 1)) != nil, x < 4, "tile \(x)")
        }
        try database.close()
        try raw().read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM region_tiles WHERE region_id = ?", arguments: [a.id.rawValue]), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM packfs_pack_state WHERE region_id = ?", arguments: [a.id.rawValue]), 0)
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA integrity_check"), "ok")
        }
    }

    func testProgressCountsEverythingMapLibreCounts() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(name: "p", definition: sampleDefinition())
        try database.write { batch in
            try batch.link(tile: batch.putTile(self.tileKey(1, 0, 0), data: StoredData(bytes: Data(count: 100), compressed: false), headers: CacheHeaders()), to: pack.id)
            try batch.link(tile: batch.putTile(self.tileKey(1, 1, 0), data: .noContent, headers: CacheHeaders()), to: pack.id)
            try batch.link(resource: batch.putResource(url: "s", kind: .style, data: StoredData(bytes: Data(count: 10), compressed: false), headers: CacheHeaders()), to: pack.id)
            try batch.setStatus(PackStatus(state: .active, requiredResources: 5, requiredTiles: 3, requiredIsPrecise: true), of: pack.id)
        }
        let progress = try database.progress(of: pack.id)
        XCTAssertEqual(progress.json, .object([
            "state": .string("active"), "completed_resources": .number(3), "completed_bytes": .number(110),
            "completed_tiles": .number(2), "completed_tile_bytes": .number(100), "required_resources": .number(5),
            "required_tiles": .number(3), "required_resources_is_precise": .bool(true), "error": .null,
        ]))
        let counts = try database.databaseCounts()
        XCTAssertEqual([counts.packs, counts.tiles, counts.resources], [1, 2, 1])
    }
}
