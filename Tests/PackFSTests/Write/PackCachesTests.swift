import Basics
import Foundation
@testable import PackFS
import PackStore
import XCTest

/// A change forgets what is cached of the pack it concerns, and only that: one pack's verdict or
/// removal leaves the sizes, contents and layouts of the others, which their readers are using.
final class PackCachesTests: WriteTestCase {
    /// Reads tile 1/0/0 of both packs (its size cached by inode, its content taken by the read that
    /// ended it, the layouts by pack) and returns the two inodes.
    private func readBothPacks() throws -> (alpha: Inode, beta: Inode) {
        XCTAssertEqual(try text("packs/alpha/1/0/0.pbf"), "tile 1/0/0")
        XCTAssertEqual(try text("packs/beta/1/0/0.pbf"), "tile 1/0/0")
        let inodes = (try walker.lookup("packs/alpha/1/0/0.pbf").attributes.inode,
                      try walker.lookup("packs/beta/1/0/0.pbf").attributes.inode)
        XCTAssertNotNil(fs.cache.size(inodes.0))
        XCTAssertNotNil(fs.cache.size(inodes.1))
        XCTAssertNotNil(fs.caches.layouts.cached(try region("alpha")))
        XCTAssertNotNil(fs.caches.layouts.cached(try region("beta")))
        return inodes
    }

    func testARegionFilesVerdictForgetsItsPackOnly() throws {
        let (alpha, beta) = try readBothPacks()
        let regionFile = try walker.lookup("packs/alpha.region").attributes.inode
        let options = try fs.open(inode: regionFile, flags: O_WRONLY | O_TRUNC, caller: caller)
        try writeInChunks(regionText(maxzoom: 9), inode: regionFile, handle: options.handle, chunk: 16)
        fs.release(inode: regionFile, handle: options.handle)
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 9, "accepted")

        XCTAssertNil(fs.cache.size(alpha))
        XCTAssertNil(fs.caches.layouts.cached(try region("alpha")))
        XCTAssertNotNil(fs.cache.size(beta), "the other pack's tile size is still at hand for its stat")
        XCTAssertNotNil(fs.caches.layouts.cached(try region("beta")))
    }

    /// A refresh of alpha switched in new bytes for the tile both packs share: both packs'
    /// caches forget it, the kernel is told to forget both files and alpha's generated ones,
    /// and both read the new bytes; nothing else of beta's is forgotten.
    func testARefreshsSwitchForgetsTheChangedFilesOfEveryPackHoldingThem() throws {
        let (alpha, beta) = try readBothPacks()
        let spriteOfBeta = try walker.lookup("packs/beta/sprites/default.json").attributes.inode
        let region = try region("alpha")
        let since = try database.requestRefresh(of: region)
        let switched = try database.write(notBefore: since) { batch in
            try batch.stageTile(TileKey(urlTemplate: Self.template, pixelRatio: 1, z: 1, x: 0, y: 0),
                                data: .encoding(Data("tile 1/0/0, new".utf8)), headers: CacheHeaders(), contentSize: nil,
                                for: region, since: since)
            return try batch.switchStaged(of: region, since: since)
        }
        fs.caches.contentSwitched(switched)
        let forgotten = Set(kernel.forgotten)
        XCTAssertTrue(forgotten.isSuperset(of: [.inode(alpha), .inode(beta)]), "\(forgotten)")
        XCTAssertTrue(forgotten.contains(.inode(try InodeCodec.encode(.pack(region, .style)))))
        XCTAssertFalse(forgotten.contains(.inode(spriteOfBeta)))
        XCTAssertEqual(try text("packs/alpha/1/0/0.pbf"), "tile 1/0/0, new")
        XCTAssertEqual(try text("packs/beta/1/0/0.pbf"), "tile 1/0/0, new")
    }

    func testARemovalForgetsItsPackOnly() throws {
        let (alpha, beta) = try readBothPacks()
        let removed = try region("beta")
        try fs.unlink(parent: packs, name: "beta.region", caller: caller)
        XCTAssertEqual(controller.calls, [.removePack(removed)])

        XCTAssertNil(fs.cache.size(beta))
        XCTAssertNil(fs.caches.layouts.cached(removed))
        XCTAssertNotNil(fs.cache.size(alpha), "the other pack's tile size is still at hand for its stat")
        XCTAssertNotNil(fs.caches.layouts.cached(try region("alpha")))
    }
}
