import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// `definePack`: what a region file written for a name means (create, or redefine), in one
/// transaction that writes only what changed.
final class DefinePackTests: StoreTestCase {
    /// A trigger in the file counts the UPDATEs of `regions` (a write that changed nothing
    /// would still count).
    func openCountingUpdates() throws -> OfflineDatabase {
        try OfflineDatabase.open(path: path).close()
        try raw().write { db in
            try db.execute(sql: """
                CREATE TABLE test_updates (column_name TEXT);
                CREATE TRIGGER test_definition AFTER UPDATE OF definition ON regions
                  BEGIN INSERT INTO test_updates VALUES ('definition'); END;
                CREATE TRIGGER test_description AFTER UPDATE OF description ON regions
                  BEGIN INSERT INTO test_updates VALUES ('description'); END;
                """)
        }
        return try OfflineDatabase.open(path: path)
    }

    func updates(_ database: OfflineDatabase) throws -> [String] {
        try database.read { try String.fetchAll($0, sql: "SELECT column_name FROM test_updates ORDER BY rowid") }
    }

    func testCreatesAPackStoredAsCreatePackStoresIt() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: .object(["k": .string("v")]))
        XCTAssertEqual(pack.name, "a")
        XCTAssertEqual(pack.definition, sampleDefinition())
        XCTAssertEqual(pack.metadata, .object(["k": .string("v")]))
        XCTAssertEqual(String(decoding: pack.description ?? Data(), as: UTF8.self), #"{"name":"a","metadata":{"k":"v"}}"#)
        XCTAssertEqual(try database.packs().count, 1)
    }

    func testRedefiningKeepsTheRowAndWritesOnlyTheDefinition() throws {
        let database = try openCountingUpdates()
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: .string("m"))
        var smaller = sampleDefinition()
        smaller.maxZoom = 10
        let redefined = try database.definePack(name: "a", definition: smaller, metadata: .string("m"))
        XCTAssertEqual(redefined.id, pack.id)
        XCTAssertEqual(redefined.definition, smaller)
        XCTAssertEqual(redefined.metadata, .string("m"))
        XCTAssertEqual(try updates(database), ["definition"])
        XCTAssertEqual(try database.packs().count, 1)
    }

    func testChangingOnlyMetadataKeepsTheDefinitionAndAnAppsOtherKeys() throws {
        try OfflineDatabase.open(path: path).close()
        try raw().write { db in
            try db.execute(
                sql: "INSERT INTO regions (definition, description) VALUES (?, ?)",
                arguments: [sampleDefinition().mapLibreJSON, Data(#"{"name":"trip","app":1}"#.utf8)])
        }
        let database = try openCountingUpdates()
        let pack = try database.definePack(name: "trip", definition: sampleDefinition(), metadata: .string("new"))
        XCTAssertEqual(pack.id, RegionID(1))
        XCTAssertEqual(pack.metadata, .string("new"))
        XCTAssertEqual(String(decoding: pack.description ?? Data(), as: UTF8.self), #"{"name":"trip","metadata":"new","app":1}"#)
        XCTAssertEqual(try updates(database), ["description"])
        let removed = try database.definePack(name: "trip", definition: sampleDefinition(), metadata: nil)
        XCTAssertNil(removed.metadata)
        XCTAssertEqual(String(decoding: removed.description ?? Data(), as: UTF8.self), #"{"name":"trip","app":1}"#)
    }

    func testAnUnchangedDefinitionWritesNothing() throws {
        let database = try openCountingUpdates()
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: .object(["n": .number(3)]))
        XCTAssertEqual(try database.definePack(name: "a", definition: sampleDefinition(), metadata: .object(["n": .number(3)])), pack)
        XCTAssertEqual(try updates(database), [])
    }

    /// The choice lives in the description (MapLibre's definition stays as MapLibre writes it); the
    /// default is no key at all, so a pack that never chose keeps its description byte for byte.
    func testTileStorageIsKeptInTheDescriptionOnlyWhenInflated() throws {
        let database = try openCountingUpdates()
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: nil, tileStorage: .inflated)
        XCTAssertEqual(pack.tileStorage, .inflated)
        XCTAssertEqual(pack.definitionText, sampleDefinition().mapLibreJSON)
        XCTAssertEqual(String(decoding: pack.description ?? Data(), as: UTF8.self), #"{"name":"a","tile_storage":"inflated"}"#)
        XCTAssertEqual(try database.definePack(name: "a", definition: sampleDefinition(), metadata: nil, tileStorage: .inflated), pack)
        XCTAssertEqual(try updates(database), [])
        let back = try database.definePack(name: "a", definition: sampleDefinition(), metadata: .string("m"))
        XCTAssertEqual(back.tileStorage, .compressed)
        XCTAssertEqual(String(decoding: back.description ?? Data(), as: UTF8.self), #"{"name":"a","metadata":"m"}"#)
        XCTAssertEqual(try updates(database), ["description"])
    }

    /// The name lookup and the insert share a transaction: definitions racing for one new name
    /// make one pack. A name an app pack shows only as a fallback is that pack, never a second.
    func testOneNameIsOnePackWhateverTheRaces() throws {
        let database = try OfflineDatabase.open(path: path)
        let ids = LockedState<[RegionID]>([])
        let base = sampleDefinition()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            var definition = base
            definition.maxZoom = Double(index)
            if let pack = try? database.definePack(name: "raced", definition: definition, metadata: nil) {
                ids.withLock { $0.append(pack.id) }
            }
        }
        XCTAssertEqual(ids.withLock { $0 }.count, 8, "no call failed")
        XCTAssertEqual(Set(ids.withLock { $0 }).count, 1)
        XCTAssertEqual(try database.packs().map(\.name), ["raced"])
        XCTAssertThrowsError(try database.definePack(name: ".hidden", definition: sampleDefinition(), metadata: nil))

        try database.close()
        try raw().write { db in
            for _ in 0..<2 {
                try db.execute(
                    sql: "INSERT INTO regions (definition, description) VALUES (?, ?)",
                    arguments: [sampleDefinition().mapLibreJSON, Data(#"{"name":"Trip"}"#.utf8)])
            }
        }
        let reopened = try OfflineDatabase.open(path: path)
        XCTAssertEqual(try reopened.packs().map(\.name), ["raced", "Trip", "region-3"])
        XCTAssertEqual(try reopened.definePack(name: "Trip", definition: sampleDefinition(), metadata: nil).id, RegionID(2))
        XCTAssertEqual(try reopened.definePack(name: "region-3", definition: sampleDefinition(), metadata: .string("x")).id, RegionID(3))
        XCTAssertEqual(try reopened.packs().count, 3)
    }
}
