import Basics
import Foundation
import SQLiteDB
@testable import PackFS
import PackStore
import TestSupport
import XCTest

/// Numbers from outside at the model: a kernel's read size and write offset at the ends of their
/// types, and row ids of an app's file that no inode holds. Each is answered (data, EFBIG, a
/// listing without the row); none traps.
final class HostileNumberTests: WriteTestCase {
    func testAReadOfAnySizeAtAnyOffsetEndsAtTheContent() throws {
        let inode = try walker.lookup("packs/alpha.region").attributes.inode
        let content = try fs.read(inode: inode, handle: 0, offset: 0, size: 1 << 20)
        XCTAssertGreaterThan(content.count, 1)
        XCTAssertEqual(try fs.read(inode: inode, handle: 0, offset: 1, size: Int.max), content.dropFirst())
        XCTAssertEqual(try fs.read(inode: inode, handle: 0, offset: 0, size: Int.max), content)
        XCTAssertEqual(try fs.read(inode: inode, handle: 0, offset: Int64.max, size: Int.max), Data())
        XCTAssertEqual(try fs.read(inode: inode, handle: 0, offset: Int64.min, size: 10), Data())
    }

    func testAWriteAtTheLastOffsetIsTooLarge() throws {
        let (_, options) = try fs.create(
            parent: packs, name: "far.region", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        let inode = try walker.lookup("packs/far.region").attributes.inode
        defer { fs.release(inode: inode, handle: options.handle) }
        for offset in [Int64.max, Int64.max - 1, Int64(RegionDrafts.maxBytes)] {
            XCTAssertEqual(error { _ = try fs.write(inode: inode, handle: options.handle, offset: offset, data: Data("{}".utf8)) },
                           .tooLarge, "offset \(offset)")
        }
        XCTAssertEqual(error { _ = try fs.write(inode: inode, handle: options.handle, offset: -1, data: Data("{}".utf8)) }, .tooLarge)
    }

    /// Kept figures an app's tool or a damaged file left negative or past the file's size
    /// (`packfs_totals`, `packfs_pack_counts`): `df` (statfs), status.json and progress.json show
    /// them as still being counted, and none traps converting them.
    func testKeptFiguresThatMakeNoSenseAreShownAsUnknown() throws {
        try database.close()
        let path = temp.path("packs.db")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE packfs_totals SET resources = -5, tiles = -3")
            try db.execute(sql: "UPDATE packfs_pack_counts SET tiles = 9223372036854775807")
        }
        database = try OfflineDatabase.open(path: path, mode: .mount)
        fs = makeFilesystem(controller: controller)
        XCTAssertEqual(try fs.statfs().files, 0)
        let status = try JSONValue.parsing(try walker.read("status.json"))
        XCTAssertEqual(status["tiles"], .null, "\(status)")
        let progress = try JSONValue.parsing(try walker.read("packs/alpha/progress.json"))
        XCTAssertEqual(progress["completed_tiles"], .null, "\(progress)")
        XCTAssertEqual(progress["counting"], .bool(true), "\(progress)")
    }

    /// A pack id of 2^62 and glyph row ids near 2^63 (an app's file): their cookies would
    /// overflow; the listings leave them out, as they leave out every row no inode can name.
    func testRowIdsNoInodeHoldsAreLeftOutOfListings() throws {
        try database.close()
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let path = temp.path("packs.db")
        try DatabaseQueue(path: path, configuration: configuration).write { db in
            try db.execute(
                sql: "INSERT INTO regions (id, definition, description) SELECT ?, definition, ? FROM regions LIMIT 1",
                arguments: [Int64(1) << 62, Data(#"{"name":"huge"}"#.utf8)])
            for (range, id) in [("0-255", Int64.max), ("256-511", Int64.max - 1)] {
                let url = Self.origin + "/fonts/Sans/\(range).pbf"
                let old = try XCTUnwrap(Int64.fetchOne(db, sql: "SELECT id FROM resources WHERE url = ?", arguments: [url]))
                try db.execute(sql: "UPDATE resources SET id = ? WHERE id = ?", arguments: [id, old])
                try db.execute(sql: "UPDATE region_resources SET resource_id = ? WHERE resource_id = ?", arguments: [id, old])
            }
        }
        database = try OfflineDatabase.open(path: path, mode: .mount)
        fs = makeFilesystem(controller: controller)
        XCTAssertTrue(try database.packs().contains { $0.name == "huge" })
        XCTAssertEqual(Set(try names("packs")), ["alpha", "alpha.region", "beta", "beta.region"])
        XCTAssertEqual(try names("packs/alpha/glyphs"), [])
    }
}
