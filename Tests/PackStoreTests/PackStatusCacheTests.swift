import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// A pack's state is read once per change (the mount asks for it for every directory it shows):
/// a write through the store is seen at once, a write behind its back only in a mode that holds
/// no lock.
final class PackStatusCacheTests: StoreTestCase {
    /// Writes `state` into the file through a connection of its own, as another process would.
    private func writeBehindTheStoresBack(_ state: PackState, of region: RegionID) throws {
        let queue = try raw()
        try queue.write { db in
            try db.execute(
                sql: "UPDATE packfs_pack_state SET state = ? WHERE region_id = ?", arguments: [state.rawValue, region.rawValue])
        }
        try queue.close()
    }

    func testAStateIsReadOncePerChangeThroughTheStore() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: nil)
        XCTAssertEqual(try database.status(of: pack.id).state, .active)
        try writeBehindTheStoresBack(.complete, of: pack.id)
        XCTAssertEqual(try database.status(of: pack.id).state, .active, "kept, not read again")

        try database.setStatus(PackStatus(state: .error, error: "e"), of: pack.id)
        XCTAssertEqual(try database.status(of: pack.id), PackStatus(state: .error, error: "e"))
        try database.write { batch in try batch.setStatus(PackStatus(state: .inactive), of: pack.id) }
        XCTAssertEqual(try database.status(of: pack.id).state, .inactive, "a batch's status too, once it commits")

        // A removal takes the status row with it (the cascade): none is left to show.
        try database.removePack(pack.id)
        XCTAssertEqual(try database.status(of: pack.id), PackStatus(state: .inactive))
    }

    func testAStateWriteThatRollsBackIsNotSeen() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? database.close() }
        let pack = try database.definePack(name: "a", definition: sampleDefinition(), metadata: nil)
        XCTAssertThrowsError(try database.write { batch in
            try batch.setStatus(PackStatus(state: .complete), of: pack.id)
            throw StoreError.invalidData("rolled back")
        })
        XCTAssertEqual(try database.status(of: pack.id).state, .active)
    }

    /// Without the lock another process may write the file: every read goes to it.
    func testAReadOnlyDatabaseReadsTheStateEveryTime() throws {
        let writer = try OfflineDatabase.open(path: path)
        let pack = try writer.definePack(name: "a", definition: sampleDefinition(), metadata: nil)
        try writer.close()
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? database.close() }
        XCTAssertEqual(try database.status(of: pack.id).state, .active)
        try writeBehindTheStoresBack(.complete, of: pack.id)
        XCTAssertEqual(try database.status(of: pack.id).state, .complete)
    }
}
