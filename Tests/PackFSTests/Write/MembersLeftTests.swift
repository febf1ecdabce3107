import Foundation
@testable import PackFS
import PackStore
import XCTest

/// A redefinition dropped tiles from a pack: the kernel forgets their names, which it would
/// otherwise keep for an hour.
final class MembersLeftTests: WriteTestCase {
    func testTheKernelForgetsTheNamesOfTilesThatLeft() throws {
        let alpha = try region("alpha")
        let primary = try walker.lookup("packs/alpha/2/1").attributes.inode
        let source = try walker.lookup("packs/alpha/sources/v/2/1").attributes.inode
        let sprite = try walker.lookup("packs/alpha/sprites/default.png").attributes.inode
        let gone = TileKey(urlTemplate: Self.template, pixelRatio: 1, z: 2, x: 1, y: 1)
        let elsewhere = TileKey(urlTemplate: Self.origin + "/other/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 1, x: 0, y: 0)
        try fs.caches.membersLeft(alpha, tiles: [gone, elsewhere], resources: [Self.origin + "/sprites/s.png"])
        XCTAssertEqual(
            Set(kernel.forgotten),
            [.entry(parent: primary, name: "1.pbf"), .entry(parent: source, name: "1.pbf"), .inode(sprite)])
    }

    /// When what changed cannot be read, the caller hears of it (and says so) instead of the
    /// kernel silently keeping the old names and bytes.
    func testAnInvalidationThatCannotBeWorkedOutThrows() throws {
        let alpha = try region("alpha")
        XCTAssertThrowsError(try fs.caches.membersLeft(RegionID(rawValue: 9_999), tiles: [], resources: []))
        try database.close()
        XCTAssertThrowsError(try fs.caches.membersLeft(alpha, tiles: [], resources: []))
        XCTAssertEqual(kernel.forgotten, [])
    }
}
