import Foundation
@testable import PackFS
import PackStore
import XCTest

/// Region files written with create/open, write and close (DESIGN section 2).
final class RegionFileTests: WriteTestCase {
    func testCopyingARegionFileInChunksCreatesThePack() throws {
        let content = regionText(maxzoom: 5)
        XCTAssertNil(try copy(content, to: "gamma.region", chunk: 5))
        XCTAssertEqual(controller.calls, [.regionFileClosed(name: "gamma", content: content)])
        XCTAssertEqual(try database.pack(named: "gamma").definition?.maxZoom, 5)
        XCTAssertEqual(try names("packs"), ["alpha.region", "alpha", "beta.region", "beta", "gamma.region", "gamma"])
        XCTAssertTrue(kernel.entries(in: packs).isSuperset(of: ["gamma.region", "gamma", "gamma.error"]))
    }

    func testWritesAtOffsetsOutOfOrderAndTheOpenFileShowsTheBuffer() throws {
        let content = regionText()
        let (entry, options) = try fs.create(parent: packs, name: "new.region", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        XCTAssertEqual(entry.attributes.size, 0)
        XCTAssertEqual(entry.attributes.permissions, 0o644)
        XCTAssertTrue(options.directIO)
        let inode = entry.attributes.inode
        let half = content.count / 2
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: Int64(half), data: content.suffix(from: half)), content.count - half)
        XCTAssertEqual(try fs.getattr(inode: inode, caller: caller).attributes.size, UInt64(content.count))
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: 0, data: content.prefix(half)), half)
        // Before the close: the name exists, no pack yet, and reads show what was written.
        XCTAssertEqual(try walker.lookup("packs/new.region").attributes.inode, inode)
        XCTAssertTrue(try names("packs").contains("new.region"))
        XCTAssertFalse(exists("packs/new"))
        XCTAssertEqual(try fs.read(inode: inode, handle: 0, offset: 0, size: 1 << 16), content)
        XCTAssertNil(error { try fs.flush(inode: inode, handle: options.handle) })
        XCTAssertNil(error { try fs.flush(inode: inode, handle: options.handle) })  // a dup'd descriptor's close
        fs.release(inode: inode, handle: options.handle)
        XCTAssertEqual(controller.calls.count, 1)
        XCTAssertEqual(try RegionFile.parse(Data(try text("packs/new.region").utf8)), try RegionFile.parse(content))
        XCTAssertEqual(error { _ = try fs.getattr(inode: inode, caller: caller) }, .stale)
    }

    func testARejectedRegionFileFailsCloseAndLeavesItsReasonUntilAGoodOne() throws {
        let bad = Data(#"{"style": "\#(Self.styleURL)", "bounds": [0, 0, 1, 1], "maxzom": 3}"#.utf8)
        guard case .invalid(let reason)? = try copy(bad, to: "gamma.region") else { return XCTFail("close succeeded") }
        XCTAssertTrue(reason.contains("maxzom"), reason)
        XCTAssertFalse(exists("packs/gamma"))
        XCTAssertFalse(exists("packs/gamma.region"))
        XCTAssertEqual(try text("packs/gamma.error"), reason + "\n")
        XCTAssertEqual(try names("packs"), ["alpha.region", "alpha", "beta.region", "beta", "gamma.error"])
        XCTAssertNil(try copy(regionText(), to: "gamma.region"))
        XCTAssertFalse(exists("packs/gamma.error"))
        XCTAssertTrue(exists("packs/gamma"))
    }

    func testAnEmptyNewRegionFileIsRejectedAndCreatesNothing() throws {
        let (entry, options) = try fs.create(parent: packs, name: "new.region", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        let now = AttributeChanges(accessed: 1_700_000_000, modified: 1_700_000_000)
        XCTAssertEqual(try fs.setattr(inode: entry.attributes.inode, changes: now, caller: caller).attributes.size, 0)
        XCTAssertEqual(error { try fs.flush(inode: entry.attributes.inode, handle: options.handle) },
                       .invalid(PackFilesystem.emptyRegionFile))
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        XCTAssertEqual(controller.calls, [])
        XCTAssertFalse(exists("packs/new.region"))
        XCTAssertEqual(try text("packs/new.error"), "empty region file\n")
    }

    func testOTruncOverAnExistingRegionFileRedefinesThePack() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        let options = try fs.open(inode: alpha, flags: O_WRONLY | O_TRUNC, caller: caller)
        XCTAssertEqual(try fs.getattr(inode: alpha, caller: caller).attributes.size, 0)
        let content = regionText(maxzoom: 9)
        try writeInChunks(content, inode: alpha, handle: options.handle, chunk: 16)
        XCTAssertNil(error { try fs.flush(inode: alpha, handle: options.handle) })
        fs.release(inode: alpha, handle: options.handle)
        XCTAssertEqual(controller.calls, [.regionFileClosed(name: "alpha", content: content)])
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 9)
        XCTAssertTrue(kernel.forgotten.contains(.inode(alpha)))
        XCTAssertTrue(try text("packs/alpha.region").contains("\"maxzoom\": 9"))
    }

    func testOpeningWithoutTruncStartsFromTheCurrentContentAndAnUntouchedCloseChangesNothing() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        let before = try text("packs/alpha.region")
        let options = try fs.open(inode: alpha, flags: O_RDWR, caller: caller)
        XCTAssertEqual(try fs.read(inode: alpha, handle: options.handle, offset: 0, size: 1 << 16), Data(before.utf8))
        XCTAssertNil(error { try fs.flush(inode: alpha, handle: options.handle) })
        XCTAssertEqual(controller.calls, [])
        // Overwriting the start in place keeps the rest: a truncate then cuts it.
        let content = regionText(maxzoom: 3)
        try writeInChunks(content, inode: alpha, handle: options.handle, chunk: 100)
        _ = try fs.setattr(inode: alpha, changes: AttributeChanges(size: UInt64(content.count)), caller: caller)
        XCTAssertNil(error { try fs.flush(inode: alpha, handle: options.handle) })
        fs.release(inode: alpha, handle: options.handle)
        XCTAssertEqual(controller.calls, [.regionFileClosed(name: "alpha", content: content)])
    }

    func testAnEmptiedExistingRegionFileIsRejectedAndThePackStays() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        let options = try fs.open(inode: alpha, flags: O_WRONLY | O_TRUNC, caller: caller)
        XCTAssertEqual(error { try fs.flush(inode: alpha, handle: options.handle) }, .invalid("empty region file"))
        fs.release(inode: alpha, handle: options.handle)
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 2)
        XCTAssertTrue(exists("packs/alpha.error"))
    }

    /// With stateless opens (no OPEN reaches the model) an O_TRUNC open arrives as a truncate to
    /// 0 and writes carry handle 0: an implicit draft takes them, judged and dropped at close.
    func testStatelessTruncateWriteAndCloseRedefineThePack() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        _ = try fs.setattr(inode: alpha, changes: AttributeChanges(size: 0), caller: caller)
        XCTAssertEqual(try fs.getattr(inode: alpha, caller: caller).attributes.size, 0, "the draft shows while written")
        let text = Data(#"{"style": "http://127.0.0.1:1/s.json", "bounds": [0, 0, 1, 1], "maxzoom": 3}"#.utf8)
        XCTAssertEqual(try fs.write(inode: alpha, handle: 0, offset: 0, data: text.prefix(10)), 10)
        XCTAssertEqual(try fs.write(inode: alpha, handle: 0, offset: 10, data: text.dropFirst(10)), text.count - 10)
        try fs.flush(inode: alpha, handle: 0)
        XCTAssertEqual(controller.calls, [.regionFileClosed(name: "alpha", content: text)])
        try fs.flush(inode: alpha, handle: 0)
        XCTAssertEqual(controller.calls.count, 1, "a second close submits nothing")
        XCTAssertNotEqual(try fs.getattr(inode: alpha, caller: caller).attributes.size, 0, "the file shows the pack's definition again")
    }

    func testRefusedCreatesOpensAndWrites() throws {
        let create = { (parent: Inode, name: String, flags: Int32) in
            self.error { _ = try self.fs.create(parent: parent, name: name, mode: 0o644, flags: flags, caller: self.caller) }
        }
        XCTAssertEqual(create(packs, "notes.txt", O_WRONLY), .notPermitted)
        XCTAssertEqual(create(.root, "x.region", O_WRONLY), .notPermitted)
        XCTAssertEqual(create(try walker.lookup("packs/alpha").attributes.inode, "x.region", O_WRONLY), .readOnly)
        guard case .invalid? = create(packs, ".hidden.region", O_WRONLY) else { return XCTFail("dot name accepted") }
        XCTAssertEqual(create(packs, "alpha.region", O_WRONLY | O_CREAT | O_EXCL), .exists)
        let tile = try walker.lookup("packs/alpha/1/0/0.pbf").attributes.inode
        XCTAssertEqual(error { _ = try fs.open(inode: tile, flags: O_WRONLY, caller: caller) }, .readOnly)
        XCTAssertEqual(error { _ = try fs.write(inode: tile, handle: 0, offset: 0, data: Data("x".utf8)) }, .readOnly)
        let status = try walker.lookup("status.json").attributes.inode
        XCTAssertEqual(error { _ = try fs.open(inode: status, flags: O_WRONLY, caller: caller) }, .notPermitted)
    }

    func testARegionFileIsBoundedAt16MiB() throws {
        let (entry, options) = try fs.create(parent: packs, name: "big.region", mode: 0o644, flags: O_WRONLY, caller: caller)
        let inode = entry.attributes.inode
        XCTAssertEqual(error { _ = try fs.write(inode: inode, handle: options.handle, offset: 16 << 20, data: Data("x".utf8)) }, .tooLarge)
        XCTAssertEqual(FilesystemError.tooLarge.errno, EFBIG)
        XCTAssertEqual(error { _ = try fs.setattr(inode: inode, changes: AttributeChanges(size: 17 << 20), caller: caller) }, .tooLarge)
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: (16 << 20) - 1, data: Data("x".utf8)), 1)
        fs.release(inode: inode, handle: options.handle)
    }

    func testCreatingAnExistingRegionFileOpensIt() throws {
        let (entry, options) = try fs.create(parent: packs, name: "beta.region", mode: 0o644, flags: O_WRONLY | O_TRUNC, caller: caller)
        XCTAssertEqual(entry.attributes.inode, try walker.lookup("packs/beta.region").attributes.inode)
        try writeInChunks(regionText(maxzoom: 4), inode: entry.attributes.inode, handle: options.handle, chunk: 50)
        XCTAssertNil(error { try fs.flush(inode: entry.attributes.inode, handle: options.handle) })
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        XCTAssertEqual(try database.pack(named: "beta").definition?.maxZoom, 4)
    }
}
