import Foundation
import SQLiteDB
@testable import PackFS
import PackStore
import TestSupport
import XCTest

/// The way of a patch through `packs/<name>.patch` (the patch itself is the controller's): it
/// shows while it is copied, the write that completes it (by its SQLite header's size) hands
/// it over once with every byte, and it is gone afterwards; other names and removals hand
/// nothing over.
final class PatchUploadTests: WriteTestCase {
    /// A small real SQLite file.
    private func sqliteFile() throws -> Data {
        let path = database.path + ".sample.mbtiles"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE tiles (a, b, c, d)")
            for n in 0..<200 { try db.execute(sql: "INSERT INTO tiles VALUES (?, 0, 0, zeroblob(100))", arguments: [n]) }
        }
        try queue.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func testTheWriteThatCompletesTheFileHandsItOverOnce() throws {
        let content = try sqliteFile()
        XCTAssertEqual(PatchUploads.declaredSize(content.prefix(100)), Int64(content.count))
        let (_, options) = try fs.create(parent: packs, name: "alpha.patch", mode: 0o644, flags: O_WRONLY | O_CREAT | O_TRUNC, caller: caller)
        let inode = try walker.lookup("packs/alpha.patch").attributes.inode
        try writeInChunks(content.prefix(content.count - 10), inode: inode, handle: options.handle, chunk: 4096)
        XCTAssertTrue(try names("packs").contains("alpha.patch"))
        XCTAssertEqual(try walker.lookup("packs/alpha.patch").attributes.size, UInt64(content.count - 10))
        XCTAssertEqual(controller.calls, [])
        _ = try fs.write(inode: inode, handle: options.handle, offset: Int64(content.count - 10), data: content.suffix(10))
        XCTAssertEqual(controller.calls, [.patchSubmitted(try region("alpha"), bytes: content.count, fileName: "alpha.patch")])
        fs.release(inode: inode, handle: options.handle)
        XCTAssertFalse(try names("packs").contains("alpha.patch"))
        XCTAssertEqual(controller.calls.count, 1)
        XCTAssertEqual(spoolFiles(), [])
    }

    /// A file that starts as no SQLite database does is refused at the write that shows it
    /// (EINVAL, the reason in `<name>.error`), and nothing reaches the pack manager; a header
    /// arriving a few bytes at a time is not refused.
    func testAFileThatIsNoDatabaseFailsItsFirstWrite() throws {
        for (name, junk) in [("alpha", Data("a text file, not a patch\n".utf8)), ("beta", Data(count: 4096)), ("alpha", Data("SQLite format 2\0".utf8))] {
            let (_, options) = try fs.create(parent: packs, name: name + ".patch", mode: 0o644, flags: O_WRONLY | O_CREAT | O_TRUNC, caller: caller)
            let inode = try walker.lookup("packs/\(name).patch").attributes.inode
            guard case .invalid(let reason)? = error({ _ = try fs.write(inode: inode, handle: options.handle, offset: 0, data: junk) }) else {
                return XCTFail("\(junk.prefix(16)) was taken")
            }
            XCTAssertTrue(reason.contains("not an SQLite database"), reason)
            XCTAssertEqual(try text("packs/\(name).error"), reason + "\n")
            XCTAssertFalse(try names("packs").contains(name + ".patch"))
            fs.release(inode: inode, handle: options.handle)
        }
        let content = try sqliteFile()
        let (_, options) = try fs.create(parent: packs, name: "beta.patch", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        let inode = try walker.lookup("packs/beta.patch").attributes.inode
        try writeInChunks(content, inode: inode, handle: options.handle, chunk: 5)
        fs.release(inode: inode, handle: options.handle)
        XCTAssertEqual(controller.calls, [.patchSubmitted(try region("beta"), bytes: content.count, fileName: "beta.patch")])
        XCTAssertEqual(spoolFiles(), [])
    }

    func testUnknownPacksRemovalsAndEmptyFilesHandNothingOver() throws {
        XCTAssertEqual(error { _ = try fs.create(parent: packs, name: "nosuch.patch", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller) },
                       .notFound)
        let content = try sqliteFile()
        let (_, options) = try fs.create(parent: packs, name: "beta.patch", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        let inode = try walker.lookup("packs/beta.patch").attributes.inode
        try writeInChunks(content.prefix(500), inode: inode, handle: options.handle, chunk: 100)
        try fs.unlink(parent: packs, name: "beta.patch", caller: caller)
        fs.release(inode: inode, handle: options.handle)
        XCTAssertFalse(try names("packs").contains("beta.patch"))
        // `touch packs/beta.patch`: created and released empty.
        let (_, touched) = try fs.create(parent: packs, name: "beta.patch", mode: 0o644, flags: O_WRONLY | O_CREAT, caller: caller)
        fs.release(inode: try walker.lookup("packs/beta.patch").attributes.inode, handle: touched.handle)
        XCTAssertFalse(try names("packs").contains("beta.patch"))
        XCTAssertEqual(controller.calls, [])
        XCTAssertEqual(spoolFiles(), [])
        XCTAssertNil(PatchUploads.declaredSize(content.prefix(99)))
        XCTAssertNil(PatchUploads.declaredSize(Data(repeating: 0, count: 100)))
    }

    private func spoolFiles() -> [String] {
        let directory = URL(fileURLWithPath: database.path).deletingLastPathComponent().path
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".patch-") }
    }
}
