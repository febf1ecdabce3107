import Foundation
@testable import PackFS
import PackStore
import XCTest

/// Region files written with create/open, write and close (docs/design.md §2): judged at the
/// write that completes their JSON text, or at release / after a rest when it never completes.
final class RegionFileWriteTests: WriteTestCase {
    func testCopyingARegionFileInChunksCreatesThePack() throws {
        let content = regionText(maxzoom: 5)
        XCTAssertNil(try copy(content, to: "gamma.region", chunk: 5))
        XCTAssertEqual(controller.calls, [.regionFileSubmitted(name: "gamma", content: content)])
        XCTAssertEqual(try database.pack(named: "gamma").definition?.maxZoom, 5)
        XCTAssertEqual(try names("packs"), ["alpha.region", "alpha", "beta.region", "beta", "gamma.region", "gamma"])
        XCTAssertTrue(kernel.entries(in: packs).isSuperset(of: ["gamma.region", "gamma", "gamma.error"]))
    }

    func testWritesAtOffsetsOutOfOrderAndTheOpenFileShowsTheBuffer() throws {
        let content = regionText()
        let (entry, options) = try fs.create(parent: packs, name: "new.region", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        XCTAssertEqual(entry.attributes.size, 0)
        XCTAssertEqual(entry.attributes.permissions, 0o600, "a region file is its owner's alone")
        XCTAssertTrue(options.directIO)
        let inode = entry.attributes.inode
        let half = content.count / 2
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: Int64(half), data: content.suffix(from: half)), content.count - half)
        XCTAssertEqual(try fs.getattr(inode: inode, caller: caller).attributes.size, UInt64(content.count))
        // The hole before the second half is not text yet: nothing is judged.
        XCTAssertEqual(try walker.lookup("packs/new.region").attributes.inode, inode)
        XCTAssertTrue(try names("packs").contains("new.region"))
        XCTAssertFalse(exists("packs/new"))
        XCTAssertEqual(controller.calls, [])
        // The write that fills it completes the object: the pack is made now, before the close,
        // and the open file still shows what was written.
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: 0, data: content.prefix(half)), half)
        XCTAssertEqual(controller.calls, [.regionFileSubmitted(name: "new", content: content)])
        XCTAssertTrue(exists("packs/new"))
        XCTAssertEqual(try fs.read(inode: inode, handle: 0, offset: 0, size: 1 << 16), content)
        // A final newline written on its own is not a new definition.
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: Int64(content.count), data: Data("\n".utf8)), 1)
        fs.release(inode: inode, handle: options.handle)
        XCTAssertEqual(controller.calls.count, 1)
        XCTAssertEqual(try RegionFile.parse(Data(try text("packs/new.region").utf8)), try RegionFile.parse(content))
        XCTAssertEqual(error { _ = try fs.getattr(inode: inode, caller: caller) }, .stale)
    }

    func testARejectedRegionFileFailsTheWriteAndLeavesItsReasonUntilAGoodOne() throws {
        let bad = Data(#"{"style": "\#(Self.styleURL)", "bounds": [0, 0, 1, 1], "maxzom": 3}"#.utf8)
        guard case .invalid(let reason)? = try copy(bad, to: "gamma.region") else { return XCTFail("the copy succeeded") }
        XCTAssertTrue(reason.contains("maxzom"), reason)
        XCTAssertFalse(exists("packs/gamma"))
        XCTAssertFalse(exists("packs/gamma.region"))
        XCTAssertEqual(try text("packs/gamma.error"), reason + "\n")
        XCTAssertEqual(try names("packs"), ["alpha.region", "alpha", "beta.region", "beta", "gamma.error"])
        XCTAssertNil(try copy(regionText(), to: "gamma.region"))
        XCTAssertFalse(exists("packs/gamma.error"))
        XCTAssertTrue(exists("packs/gamma"))
    }

    func testTextThatCanNeverBeAnObjectFailsAtOnce() throws {
        for (name, text) in [("a", "not json"), ("b", #"{"style": [1, 2}"#), ("c", "{}\n{}"), ("d", "[{}]")] {
            guard case .invalid? = try copy(Data(text.utf8), to: name + ".region", chunk: 3) else { return XCTFail(text) }
            XCTAssertTrue(exists("packs/\(name).error"), text)
            XCTAssertFalse(exists("packs/" + name), text)
        }
    }

    func testAnUnfinishedObjectIsJudgedWhenTheLastHandleGoes() throws {
        let text = Data(#"{"style": "http://127.0.0.1:1/s.json", "bounds": [0,"#.utf8)
        let (entry, options) = try fs.create(parent: packs, name: "cut.region", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        let second = try fs.open(inode: entry.attributes.inode, flags: O_WRONLY, caller: caller)
        XCTAssertEqual(try fs.write(inode: entry.attributes.inode, handle: options.handle, offset: 0, data: text), text.count)
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        XCTAssertFalse(exists("packs/cut.error"), "a handle is still open")
        fs.release(inode: entry.attributes.inode, handle: second.handle)
        XCTAssertEqual(controller.calls, [.regionFileSubmitted(name: "cut", content: text)])
        XCTAssertTrue(exists("packs/cut.error"))
        XCTAssertFalse(exists("packs/cut.region"))
    }

    func testAnEmptyNewRegionFileIsRejectedAndCreatesNothing() throws {
        let (entry, options) = try fs.create(parent: packs, name: "new.region", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        let now = AttributeChanges(accessed: 1_700_000_000, modified: 1_700_000_000)
        XCTAssertEqual(try fs.setattr(inode: entry.attributes.inode, changes: now, caller: caller).attributes.size, 0)
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
        fs.release(inode: alpha, handle: options.handle)
        XCTAssertEqual(controller.calls, [.regionFileSubmitted(name: "alpha", content: content)])
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 9)
        XCTAssertTrue(kernel.forgotten.contains(.inode(alpha)))
        XCTAssertTrue(try text("packs/alpha.region").contains("\"maxzoom\": 9"))
    }

    func testOpeningWithoutTruncStartsFromTheCurrentContentAndAnUntouchedCloseChangesNothing() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        let before = try text("packs/alpha.region")
        let options = try fs.open(inode: alpha, flags: O_RDWR, caller: caller)
        XCTAssertEqual(try fs.read(inode: alpha, handle: options.handle, offset: 0, size: 1 << 16), Data(before.utf8))
        XCTAssertEqual(controller.calls, [])
        // Overwriting the start in place keeps the rest (text after the object: rejected), and
        // the truncate that cuts it decides the text again.
        let content = regionText(maxzoom: 3)
        XCTAssertGreaterThan(before.utf8.count, content.count)
        guard case .invalid? = error({ try writeInChunks(content, inode: alpha, handle: options.handle, chunk: content.count) })
        else { return XCTFail("text after the object was accepted") }
        XCTAssertNil(error { _ = try fs.setattr(inode: alpha, changes: AttributeChanges(size: UInt64(content.count)), caller: caller) })
        fs.release(inode: alpha, handle: options.handle)
        XCTAssertEqual(controller.calls.last, .regionFileSubmitted(name: "alpha", content: content))
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 3)
    }

    func testAnEmptiedExistingRegionFileIsRejectedAndThePackStays() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        let options = try fs.open(inode: alpha, flags: O_WRONLY | O_TRUNC, caller: caller)
        fs.release(inode: alpha, handle: options.handle)
        XCTAssertEqual(try text("packs/alpha.error"), "empty region file\n")
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 2)
        XCTAssertTrue(exists("packs/alpha.error"))
    }

    /// With stateless opens (no OPEN reaches the model) an O_TRUNC open arrives as a truncate to
    /// 0 and writes carry handle 0: an implicit draft takes them, judged at the completing write
    /// and dropped once it has rested `settleDelay` (no release will come).
    func testStatelessTruncateAndWritesRedefineThePack() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        _ = try fs.setattr(inode: alpha, changes: AttributeChanges(size: 0), caller: caller)
        XCTAssertEqual(try fs.getattr(inode: alpha, caller: caller).attributes.size, 0, "the draft shows while written")
        let text = Data(#"{"style": "http://127.0.0.1:1/s.json", "bounds": [0, 0, 1, 1], "maxzoom": 3}"#.utf8)
        XCTAssertEqual(try fs.write(inode: alpha, handle: 0, offset: 0, data: text.prefix(10)), 10)
        XCTAssertEqual(controller.calls, [])
        XCTAssertEqual(try fs.write(inode: alpha, handle: 0, offset: 10, data: text.dropFirst(10)), text.count - 10)
        XCTAssertEqual(controller.calls, [.regionFileSubmitted(name: "alpha", content: text)])
        XCTAssertEqual(try fs.getattr(inode: alpha, caller: caller).attributes.size, UInt64(text.count))
        try waitUntil { try self.fs.getattr(inode: alpha, caller: self.caller).attributes.size != UInt64(text.count) }
        XCTAssertEqual(controller.calls.count, 1, "settling submits nothing twice")
        XCTAssertTrue(kernel.forgotten.contains(.inode(alpha)))
    }

    func testAStatelessWriteThatNeverCompletesIsJudgedAfterItsRest() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        _ = try fs.setattr(inode: alpha, changes: AttributeChanges(size: 0), caller: caller)
        XCTAssertEqual(try fs.write(inode: alpha, handle: 0, offset: 0, data: Data("{\"style\": ".utf8)), 10)
        XCTAssertFalse(exists("packs/alpha.error"))
        // Judged (the error file), then dropped (the draft's 10 bytes no longer shown): two steps, so wait for both.
        try waitUntil {
            guard self.exists("packs/alpha.error") else { return false }
            return try self.fs.getattr(inode: alpha, caller: self.caller).attributes.size != 10
        }
        XCTAssertEqual(try database.pack(named: "alpha").definition?.maxZoom, 2, "the pack keeps its definition")
    }

    /// Once the kernel has seen a stateless open it sends no RELEASE, not even for a file it
    /// created: a created draft settles by itself. Before it did, an unfinished or empty new file
    /// stayed a draft for the mount, never judged (the hostile corpus's truncated region files
    /// showed no `.error`), and a pack made by writing its region file could never be renamed.
    func testCreatedDraftsWhoseReleaseNeverComesSettle() throws {
        fs.useStatelessOpens()
        let flags = O_WRONLY | O_CREAT | O_TRUNC
        let (cut, cutOptions) = try fs.create(parent: packs, name: "cut.region", mode: 0o644, flags: flags, caller: caller)
        XCTAssertEqual(try fs.write(inode: cut.attributes.inode, handle: cutOptions.handle, offset: 0, data: Data("{\"style\": ".utf8)), 10)
        _ = try fs.create(parent: packs, name: "empty.region", mode: 0o644, flags: flags, caller: caller)
        let (gamma, gammaOptions) = try fs.create(parent: packs, name: "gamma.region", mode: 0o644, flags: flags, caller: caller)
        try writeInChunks(regionText(), inode: gamma.attributes.inode, handle: gammaOptions.handle, chunk: 1000)
        try waitUntil { self.exists("packs/cut.error") && self.exists("packs/empty.error") }
        XCTAssertTrue(try text("packs/cut.error").contains("not valid JSON"))
        XCTAssertTrue(try text("packs/empty.error").contains("empty region file"))
        try waitUntil { !self.exists("packs/cut.region") && !self.exists("packs/empty.region") }
        try waitUntil {
            (try? self.fs.rename(parent: self.packs, name: "gamma.region", newParent: self.packs, newName: "delta.region",
                                 caller: self.caller)) != nil
        }
        XCTAssertNoThrow(try database.pack(named: "delta"))
    }

    func testRefusedCreatesOpensAndWrites() throws {
        let create = { (parent: Inode, name: String, flags: Int32) in
            self.error { _ = try self.fs.create(parent: parent, name: name, mode: 0o644, flags: flags, caller: self.caller) }
        }
        XCTAssertNil(create(packs, "notes.txt", O_WRONLY), "any other file in packs/ is a scratch file (sed -i's)")
        XCTAssertEqual(create(packs, "notes.error", O_WRONLY), .notPermitted)
        XCTAssertEqual(create(packs, "notes.txt", O_WRONLY | O_CREAT | O_EXCL), .exists)
        XCTAssertEqual(create(.root, "x.region", O_WRONLY), .notPermitted)
        XCTAssertEqual(create(try walker.lookup("packs/alpha").attributes.inode, "x.region", O_WRONLY), .readOnly)
        guard case .invalid? = create(packs, ".hidden.region", O_WRONLY) else { return XCTFail("dot name accepted") }
        guard case .invalid? = create(packs, "..region", O_WRONLY) else { return XCTFail("'.' accepted") }
        // A refused name says why where a user looks.
        XCTAssertTrue(try text("packs/.hidden.error").contains("starts with '.'"))
        XCTAssertTrue(try text("packs/..error").contains("starts with '.'"))
        XCTAssertFalse(exists("packs/.hidden"))
        XCTAssertEqual(create(packs, "alpha.region", O_WRONLY | O_CREAT | O_EXCL), .exists)
        let tile = try walker.lookup("packs/alpha/1/0/0.pbf").attributes.inode
        XCTAssertEqual(error { _ = try fs.open(inode: tile, flags: O_WRONLY, caller: caller) }, .readOnly)
        XCTAssertEqual(error { _ = try fs.write(inode: tile, handle: 0, offset: 0, data: Data("x".utf8)) }, .readOnly)
        let status = try walker.lookup("status.json").attributes.inode
        XCTAssertEqual(error { _ = try fs.open(inode: status, flags: O_WRONLY, caller: caller) }, .notPermitted)
    }

    /// Up to 16 MiB is taken; a byte past it fails with EFBIG, nothing is judged or changed, and
    /// `<name>.error` names the limit.
    func testARegionFileIsBoundedAt16MiB() throws {
        let (entry, options) = try fs.create(parent: packs, name: "big.region", mode: 0o644, flags: O_WRONLY, caller: caller)
        let inode = entry.attributes.inode
        XCTAssertEqual(try fs.write(inode: inode, handle: options.handle, offset: (16 << 20) - 1, data: Data("x".utf8)), 1)
        XCTAssertEqual(error { _ = try fs.write(inode: inode, handle: options.handle, offset: 16 << 20, data: Data("x".utf8)) }, .tooLarge)
        XCTAssertEqual(FilesystemError.tooLarge.errno, EFBIG)
        fs.release(inode: inode, handle: options.handle)
        XCTAssertEqual(try text("packs/big.error"), "region text larger than 16 MiB (16777216 bytes); nothing was changed\n")
        XCTAssertFalse(exists("packs/big.region"))
        XCTAssertEqual(controller.calls, [])
        // A truncate past it, on a pack's region file: refused alike, the pack as it was.
        let beta = try walker.lookup("packs/beta.region").attributes.inode
        let open = try fs.open(inode: beta, flags: O_WRONLY, caller: caller)
        XCTAssertEqual(error { _ = try fs.setattr(inode: beta, changes: AttributeChanges(size: 17 << 20), caller: caller) }, .tooLarge)
        fs.release(inode: beta, handle: open.handle)
        XCTAssertTrue(try text("packs/beta.error").hasPrefix("region text larger than 16 MiB"))
        XCTAssertEqual(try database.pack(named: "beta").definition?.maxZoom, 2)
        XCTAssertEqual(controller.calls, [])
    }

    /// A text written in many small pieces is never copied whole: each write changes the one
    /// buffer in place (a copy per write made 8 MiB of blanks take 13 times as long as 2 MiB).
    func testWritesChangeTheBufferInPlace() throws {
        let (entry, options) = try fs.create(parent: packs, name: "long.region", mode: 0o644, flags: O_WRONLY, caller: caller)
        let inode = entry.attributes.inode
        // Sized first (a hole), so that no write has to grow the buffer: only a copy moves it.
        _ = try fs.setattr(inode: inode, changes: AttributeChanges(size: 1 << 20), caller: caller)
        let address = try XCTUnwrap(fs.drafts.bufferAddress(named: "long"))
        for offset in stride(from: 0, to: 1 << 20, by: 4096) {
            _ = try fs.write(inode: inode, handle: options.handle, offset: Int64(offset), data: Data(repeating: 0x20, count: 4096))
        }
        XCTAssertEqual(fs.drafts.bufferAddress(named: "long"), address, "a write copied the text")
        XCTAssertEqual(fs.drafts.draft(named: "long")?.scan.position, 1 << 20, "each byte scanned once, in order")
        fs.release(inode: inode, handle: options.handle)
    }

    /// NUL bytes (or any byte that starts no JSON text) written first fail that write with EINVAL,
    /// as other junk does; a hole a later write left is no junk, and waits to be filled.
    func testWrittenZeroBytesAreJunk() throws {
        for (name, text) in [("nul", Data(count: 64)), ("late", Data("{\"style\": ".utf8) + Data(count: 8)), ("bin", Data([0xFF, 0xD8, 0xFF]))] {
            guard case .invalid? = try copy(text, to: name + ".region", chunk: 16) else { return XCTFail(name) }
            XCTAssertTrue(exists("packs/\(name).error"), name)
            XCTAssertFalse(exists("packs/" + name), name)
        }
        let (entry, options) = try fs.create(parent: packs, name: "holes.region", mode: 0o644, flags: O_WRONLY, caller: caller)
        let good = regionText()
        XCTAssertEqual(try fs.write(inode: entry.attributes.inode, handle: options.handle, offset: 10, data: good.dropFirst(10)), good.count - 10)
        XCTAssertEqual(try fs.write(inode: entry.attributes.inode, handle: options.handle, offset: 0, data: good.prefix(10)), 10)
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        XCTAssertTrue(exists("packs/holes"))
    }

    func testCreatingAnExistingRegionFileOpensIt() throws {
        let (entry, options) = try fs.create(parent: packs, name: "beta.region", mode: 0o644, flags: O_WRONLY | O_TRUNC, caller: caller)
        XCTAssertEqual(entry.attributes.inode, try walker.lookup("packs/beta.region").attributes.inode)
        try writeInChunks(regionText(maxzoom: 4), inode: entry.attributes.inode, handle: options.handle, chunk: 50)
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        XCTAssertEqual(try database.pack(named: "beta").definition?.maxZoom, 4)
    }
}
