import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// The hostile-input corpus (Fixtures/hostile) at the store: every bad region file and pack name
/// is refused naming its field, and every bad database file is refused untouched or opens and
/// lists without a crash.
final class HostileInputTests: StoreTestCase {
    let base = "http://127.0.0.1:8181"

    func testEveryBadRegionFileIsRefusedNamingTheField() throws {
        let cases = try HostileCorpus.cases("region")
        XCTAssertGreaterThanOrEqual(cases.count, 80)
        for item in cases {
            XCTAssertThrowsError(try RegionFile.parse(try item.data(base: base)), "\(item)") { error in
                assertMentions(String(describing: error), item.expect ?? ["(accepted)"], item)
            }
        }
    }

    func testEveryBadPackNameIsRefusedSayingWhy() throws {
        let names = try XCTUnwrap(HostileCorpus.cases("name").first)
        let listing = try JSONValue.parsing(names.data())
        for entry in listing["invalid"]?.array ?? [] {
            let name = try XCTUnwrap(entry["name"]?.string)
            let expect = entry["expect"]?.array?.compactMap(\.string) ?? []
            XCTAssertThrowsError(try PackName.validate(name), name.debugDescription) { error in
                assertMentions(String(describing: error), expect, name.debugDescription)
            }
        }
    }

    /// NFC "café" then NFD "café": the second is refused (it would look like the first), by
    /// every way a pack gets a name.
    func testANameThatDiffersOnlyInNormalisationIsRefused() throws {
        let pair = try XCTUnwrap(JSONValue.parsing(HostileCorpus.cases("name")[0].data())["normalisation"])
        let (first, second) = (try XCTUnwrap(pair["first"]?.string), try XCTUnwrap(pair["second"]?.string))
        let expect = pair["expect"]?.array?.compactMap(\.string) ?? []
        XCTAssertEqual(first, second, "Swift calls them equal")
        XCTAssertFalse(PackName.same(first, second), "their bytes differ")
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let pack = try database.createPack(name: first, definition: sampleDefinition())
        let other = try database.createPack(name: "other", definition: sampleDefinition())
        let attempts: [(String, () throws -> Void)] = [
            ("create", { _ = try database.createPack(name: second, definition: self.sampleDefinition()) }),
            ("define", { _ = try database.definePack(name: second, definition: self.sampleDefinition(), metadata: nil) }),
            ("rename", { try database.renamePack(other.id, to: second) }),
        ]
        for (what, attempt) in attempts {
            XCTAssertThrowsError(try attempt(), what) { assertMentions(String(describing: $0), expect, what) }
        }
        XCTAssertEqual(try database.packs().map(\.name), [first, "other"])
        XCTAssertThrowsError(try database.pack(named: second), "a lookup is byte for byte")
        XCTAssertEqual(try database.pack(named: first).id, pack.id)
    }

    func testEveryRefusedDatabaseFileIsLeftByteForByte() throws {
        let cases = try HostileCorpus.databaseCopies(refused: true, in: temp)
        XCTAssertGreaterThanOrEqual(cases.count, 15)
        for (item, copy) in cases {
            let before = try Data(contentsOf: URL(fileURLWithPath: copy))
            let modes: [OfflineDatabase.Mode] = item.bool("lists") ? [.command, .mount] : [.readOnly, .command, .mount]
            for mode in modes {
                XCTAssertThrowsError(try OfflineDatabase.open(path: copy, mode: mode), "\(item) \(mode)") { error in
                    // read-only opens say "no such offline database" for anything they cannot read
                    if mode != .readOnly { assertMentions(String(describing: error), item.expect ?? [], item) }
                }
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copy)), before, "\(item) was modified")
            let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.hasPrefix(item.stem + ".db-") }
            XCTAssertEqual(left, [], "\(item) left files beside it")
        }
    }

    /// Databases with hostile contents open, and what `packfs list` reads comes back (the names
    /// unique, the unusable ones replaced) without a trap.
    func testEveryHostileDatabaseOpensAndLists() throws {
        let cases = try HostileCorpus.databaseCopies(refused: false, in: temp)
        XCTAssertGreaterThanOrEqual(cases.count, 15)
        for (item, copy) in cases {
            for mode in [OfflineDatabase.Mode.readOnly, .mount] {
                let database = try OfflineDatabase.open(path: copy, mode: mode)
                defer { try? database.close() }
                let packs = try database.packs()
                if let expected = item.strings("packs") {
                    XCTAssertEqual(Set(packs.map(\.name)), Set(expected), "\(item)")
                }
                XCTAssertEqual(Set(packs.map { Array($0.name.utf8) }).count, packs.count, "\(item): names repeat")
                for pack in packs { _ = try database.progress(of: pack.id) }
                _ = try? database.databaseCounts()
            }
        }
    }
}
