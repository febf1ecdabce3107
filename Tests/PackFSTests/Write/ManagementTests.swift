import Foundation
@testable import PackFS
import PackStore
import XCTest

/// Removal, rename, touch, chmod/truncate and the state attributes (docs/design.md §2).
final class ManagementTests: WriteTestCase {
    func testRemovingTheRegionFileOrTheDirectoryRemovesThePack() throws {
        let alpha = try region("alpha")
        try fs.unlink(parent: packs, name: "alpha.region", caller: caller)
        XCTAssertEqual(controller.calls, [.removePack(alpha)])
        XCTAssertEqual(try names("packs"), ["beta.region", "beta"])
        XCTAssertTrue(kernel.entries(in: packs).isSuperset(of: ["alpha", "alpha.region"]))
        let beta = try region("beta")
        try fs.rmdir(parent: packs, name: "beta", caller: caller)
        XCTAssertEqual(controller.calls.last, .removePack(beta))
        XCTAssertEqual(try names("packs"), [])
        XCTAssertEqual(error { try fs.unlink(parent: packs, name: "alpha.region", caller: caller) }, .notFound)
        XCTAssertEqual(error { try fs.rmdir(parent: packs, name: "beta", caller: caller) }, .notFound)
    }

    func testRemovingAnErrorFileForgetsTheRejection() throws {
        fs.recordRegionFileVerdict(name: "bad", reason: "no")
        try fs.unlink(parent: packs, name: "bad.error", caller: caller)
        XCTAssertFalse(exists("packs/bad.error"))
        XCTAssertTrue(kernel.entries(in: packs).contains("bad.error"))
        XCTAssertEqual(controller.calls, [])
    }

    func testRefusedRemovals() throws {
        let alpha = try walker.lookup("packs/alpha").attributes.inode
        XCTAssertEqual(error { try fs.unlink(parent: .root, name: "status.json", caller: caller) }, .notPermitted)
        XCTAssertEqual(error { try fs.rmdir(parent: .root, name: "packs", caller: caller) }, .notPermitted)
        XCTAssertEqual(error { try fs.unlink(parent: packs, name: "alpha", caller: caller) }, .isDirectory)
        XCTAssertEqual(error { try fs.rmdir(parent: packs, name: "alpha.region", caller: caller) }, .notDirectory)
        XCTAssertEqual(error { try fs.unlink(parent: alpha, name: "sources", caller: caller) }, .isDirectory)
        XCTAssertEqual(error { try fs.unlink(parent: alpha, name: "nope", caller: caller) }, .notFound)
        // A region file still being written is removed as an unlinked file's bytes go: unjudged.
        let (entry, options) = try fs.create(parent: packs, name: "new.region", mode: 0o644, flags: O_WRONLY, caller: caller)
        XCTAssertNoThrow(try fs.unlink(parent: packs, name: "new.region", caller: caller))
        XCTAssertFalse(exists("packs/new.region"))
        XCTAssertEqual(error { _ = try fs.write(inode: entry.attributes.inode, handle: options.handle, offset: 0, data: Data("{}".utf8)) }, .notPermitted)
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        XCTAssertEqual(controller.calls, [], "nothing was submitted")
        fs = makeFilesystem(controller: nil)
        XCTAssertEqual(error { try fs.unlink(parent: packs, name: "alpha.region", caller: caller) }, .notPermitted)
    }

    func testMkdirIsRefused() throws {
        XCTAssertEqual(error { _ = try fs.mkdir(parent: packs, name: "new", mode: 0o755, caller: caller) }, .notPermitted)
        XCTAssertEqual(error { _ = try fs.mkdir(parent: .root, name: "new", mode: 0o755, caller: caller) }, .notPermitted)
        let alpha = try walker.lookup("packs/alpha").attributes.inode
        XCTAssertEqual(error { _ = try fs.mkdir(parent: alpha, name: "new", mode: 0o755, caller: caller) }, .readOnly)
    }

    func testUnlinkingAFileInsideAPackDropsItFromThatPackOnly() throws {
        let column = try walker.lookup("packs/alpha/1/0").attributes.inode
        try fs.unlink(parent: column, name: "0.pbf", caller: caller)
        XCTAssertFalse(exists("packs/alpha/1/0/0.pbf"))
        XCTAssertEqual(try text("packs/beta/1/0/0.pbf"), "tile 1/0/0")
        // The kernel forgets an unlinked name itself; a notification would wait for the lock
        // of rm's next unlink in that directory (see KernelNotifier).
        XCTAssertFalse(kernel.forgotten.contains(.entry(parent: column, name: "0.pbf")))
        let pack = try walker.lookup("packs/alpha").attributes.inode
        try fs.unlink(parent: pack, name: "style.json", caller: caller)
        XCTAssertFalse(exists("packs/alpha/style.json"))
        XCTAssertTrue(exists("packs/beta/style.json"))
        XCTAssertTrue(exists("packs/alpha/1/1/0.pbf"), "the tree still follows the stored style")
        try fs.unlink(parent: pack, name: "progress.json", caller: caller)
        XCTAssertTrue(exists("packs/alpha/progress.json"), "generated: nothing to drop")
    }

    /// `rm -r packs/alpha` as fts walks it: list a directory, unlink its files and recurse into
    /// its directories (by the inode the listing gave, as a cached dentry would), rmdir each
    /// directory after its content, the pack directory last. Before each rmdir the name is looked
    /// up again, as the kernel does once its cached entry expired: an emptied directory stays.
    func testRecursiveRemovalEndsWithThePackGoneAndSharedTilesKept() throws {
        let alpha = try region("alpha")
        var removed: [String] = []
        func remove(_ inode: Inode, path: String) throws {
            for entry in try walker.list(inode) where entry.name != "." && entry.name != ".." {
                if entry.kind == .directory {
                    try remove(entry.inode, path: path + "/" + entry.name)
                    XCTAssertNoThrow(try fs.lookup(parent: inode, name: entry.name, caller: caller), path + "/" + entry.name)
                    try fs.rmdir(parent: inode, name: entry.name, caller: caller)
                } else {
                    do { try fs.unlink(parent: inode, name: entry.name, caller: caller) } catch {
                        XCTFail("\(path)/\(entry.name): \(error)")
                    }
                }
                removed.append(path + "/" + entry.name)
            }
        }
        try remove(try walker.lookup("packs/alpha").attributes.inode, path: "packs/alpha")
        try fs.rmdir(parent: packs, name: "alpha", caller: caller)
        XCTAssertTrue(removed.contains("packs/alpha/sources/v/2/1/1.pbf"), "\(removed)")
        XCTAssertTrue(removed.contains("packs/alpha/glyphs/Sans/256-511.pbf"), "\(removed)")
        XCTAssertEqual(controller.calls, [.removePack(alpha)])
        XCTAssertEqual(try names("packs"), ["beta.region", "beta"])
        XCTAssertEqual(try text("packs/beta/1/0/0.pbf"), "tile 1/0/0")
        XCTAssertEqual(try names("packs/beta/sprites"), ["default.json", "default.png"])
    }

    func testRenamingTheRegionFileOrTheDirectoryRenamesThePack() throws {
        let alpha = try region("alpha")
        try fs.rename(parent: packs, name: "alpha.region", newParent: packs, newName: "gamma.region", caller: caller)
        XCTAssertEqual(try database.pack(id: alpha).name, "gamma")
        XCTAssertEqual(try names("packs"), ["gamma.region", "gamma", "beta.region", "beta"])
        XCTAssertTrue(try text("packs/gamma/style.json").contains("file:///mnt/packs/gamma/"))
        XCTAssertTrue(kernel.entries(in: packs).isSuperset(of: ["alpha", "alpha.region", "gamma", "gamma.region"]))
        XCTAssertTrue(kernel.forgotten.contains(.inode(try InodeCodec.encode(.pack(alpha, .style)))))
        try fs.rename(parent: packs, name: "gamma", newParent: packs, newName: "delta", caller: caller)
        XCTAssertEqual(try database.pack(id: alpha).name, "delta")
        try fs.rename(parent: packs, name: "delta", newParent: packs, newName: "delta", caller: caller)
        XCTAssertEqual(controller.calls, [])
    }

    func testRefusedRenames() throws {
        let rename = { (parent: Inode, name: String, newParent: Inode, newName: String) in
            self.error { try self.fs.rename(parent: parent, name: name, newParent: newParent, newName: newName, caller: self.caller) }
        }
        let alpha = try walker.lookup("packs/alpha").attributes.inode
        XCTAssertEqual(rename(packs, "alpha.region", packs, "beta.region"), .exists)
        XCTAssertEqual(rename(packs, "alpha", packs, "beta"), .exists)
        XCTAssertEqual(rename(packs, "alpha.region", packs, "alpha.json"), .notPermitted)
        XCTAssertEqual(rename(packs, "alpha.region", .root, "alpha.region"), .notPermitted)
        XCTAssertEqual(rename(.root, "status.json", .root, "s.json"), .notPermitted)
        XCTAssertEqual(rename(alpha, "style.json", alpha, "s.json"), .readOnly)
        XCTAssertEqual(rename(packs, "alpha", alpha, "x"), .readOnly)
        XCTAssertEqual(rename(packs, "nope", packs, "x"), .notFound)
        guard case .invalid? = rename(packs, "alpha", packs, ".hidden") else { return XCTFail("dot name accepted") }
        XCTAssertTrue(try text("packs/.hidden.error").contains("starts with '.'"), "a refused name says why")
        try fs.unlink(parent: packs, name: ".hidden.error", caller: caller)
        fs.recordRegionFileVerdict(name: "bad", reason: "no")
        XCTAssertEqual(rename(packs, "bad.error", packs, "worse.error"), .notPermitted)
        let (entry, options) = try fs.create(parent: packs, name: "new.region", mode: 0o644, flags: O_WRONLY, caller: caller)
        XCTAssertEqual(rename(packs, "new.region", packs, "newer.region"), .busy)
        XCTAssertEqual(rename(packs, "alpha", packs, "new"), .exists)
        fs.release(inode: entry.attributes.inode, handle: options.handle)
        // Released empty: judged as it stands (an empty region file defines nothing).
        XCTAssertEqual(try names("packs"), ["alpha.region", "alpha", "beta.region", "beta", "bad.error", "new.error"])
    }

    func testTouchRefreshesThePack() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes
        // touch: open O_WRONLY|O_CREAT on the existing file, futimens, close.
        let options = try fs.open(inode: alpha.inode, flags: O_WRONLY, caller: caller)
        let now = AttributeChanges(accessed: 1_700_000_000, modified: 1_700_000_000)
        XCTAssertEqual(try fs.setattr(inode: alpha.inode, changes: now, caller: caller).attributes.size, alpha.size)
        fs.release(inode: alpha.inode, handle: options.handle)
        XCTAssertEqual(controller.calls, [.refreshPack(try region("alpha"))])
    }

    func testChmodChownTruncateAndChangesInsideAPackAreRefused() throws {
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        let setattr = { (inode: Inode, changes: AttributeChanges) in
            self.error { _ = try self.fs.setattr(inode: inode, changes: changes, caller: self.caller) }
        }
        XCTAssertEqual(setattr(alpha, AttributeChanges(mode: 0o640)), .notPermitted)
        XCTAssertEqual(setattr(alpha, AttributeChanges(mode: 0o444)), .notPermitted)
        XCTAssertEqual(setattr(alpha, AttributeChanges(uid: getuid() + 1)), .notPermitted)
        XCTAssertEqual(setattr(alpha, AttributeChanges(size: 5)), .notPermitted, "only O_TRUNC's truncate to 0")
        XCTAssertNil(setattr(alpha, AttributeChanges(mode: 0o644, uid: getuid(), gid: getgid())), "a chmod that changes nothing")
        XCTAssertNil(setattr(alpha, AttributeChanges(mode: 0o600)), "the mode a region file shows")
        let tile = try walker.lookup("packs/alpha/1/0/0.pbf").attributes.inode
        XCTAssertEqual(setattr(tile, AttributeChanges(modified: 1)), .readOnly)
        XCTAssertEqual(setattr(packs, AttributeChanges(mode: 0o700)), .notPermitted)
        XCTAssertEqual(setattr(try walker.lookup("packs/alpha").attributes.inode, AttributeChanges(modified: 1)), .notPermitted)
        XCTAssertEqual(controller.calls, [])
    }

    func testStateAndProgressAttributes() throws {
        let alphaID = try region("alpha")
        let alpha = try walker.lookup("packs/alpha.region").attributes.inode
        XCTAssertEqual(try fs.listxattr(inode: alpha), ["user.packfs.state", "user.packfs.progress"])
        XCTAssertEqual(try fs.getxattr(inode: alpha, name: "user.packfs.state"), Data("inactive".utf8))
        try database.setStatus(PackStatus(state: .complete), of: alphaID)
        XCTAssertEqual(try fs.getxattr(inode: alpha, name: "user.packfs.state"), Data("complete".utf8))
        XCTAssertEqual(try fs.getxattr(inode: alpha, name: "user.packfs.progress"), Data(try text("packs/alpha/progress.json").utf8))
        let set = { (inode: Inode, name: String, value: String) in
            self.error { try self.fs.setxattr(inode: inode, name: name, value: Data(value.utf8), caller: self.caller) }
        }
        try fs.setxattr(inode: alpha, name: "user.packfs.state", value: Data("active".utf8), caller: caller)
        // Suspending a complete pack (or one in error) would change nothing: refused, not pretended.
        for state in [PackState.complete, .error] {
            try database.setStatus(PackStatus(state: state), of: alphaID)
            guard case .invalid? = set(alpha, "user.packfs.state", "inactive") else { return XCTFail("inactive on \(state)") }
        }
        try database.setStatus(PackStatus(state: .active), of: alphaID)
        try fs.setxattr(inode: alpha, name: "user.packfs.state", value: Data("inactive\n".utf8), caller: caller)
        XCTAssertEqual(controller.calls, [.setPackActive(alphaID, true), .setPackActive(alphaID, false)])
        guard case .invalid? = set(alpha, "user.packfs.state", "complete") else { return XCTFail("complete accepted") }
        XCTAssertEqual(set(alpha, "user.packfs.progress", "{}"), .notPermitted)
        XCTAssertEqual(set(alpha, "user.other", "x"), .notSupported)
        XCTAssertEqual(FilesystemError.notSupported.errno, ENOTSUP)
        XCTAssertEqual(error { _ = try fs.getxattr(inode: alpha, name: "user.other") }, .noAttribute)
        // Namespaces PackFS keeps nothing in are not supported (ls stops asking: one round trip
        // per file less in `ls -l`).
        for name in ["security.selinux", "system.posix_acl_access", "trusted.x"] {
            XCTAssertEqual(error { _ = try fs.getxattr(inode: alpha, name: name) }, .notSupported, name)
        }
        let tile = try walker.lookup("packs/alpha/1/0/0.pbf").attributes.inode
        XCTAssertEqual(set(tile, "user.packfs.state", "active"), .readOnly)
        XCTAssertEqual(error { _ = try fs.getxattr(inode: tile, name: "user.packfs.state") }, .noAttribute)
        XCTAssertEqual(try fs.listxattr(inode: tile), [])
        XCTAssertEqual(set(packs, "user.packfs.state", "active"), .notSupported)
        XCTAssertEqual(controller.calls.count, 2)
    }
}
