import Foundation
import TestSupport
import XCTest

/// Changes through the kernel: create/write/close, write errors, unlink, rmdir, rename, xattrs.
final class ChangeTests: MountedTestCase {
    func testCreateWriteAndReadBack() throws {
        let content = Data("{\"name\": \"helsinki\"}\n".utf8)
        try content.write(to: URL(fileURLWithPath: path("helsinki.region")))
        XCTAssertEqual(FileManager.default.contents(atPath: path("helsinki.region")), content)
        XCTAssertEqual(run("/usr/bin/stat", ["-c", "%s", path("helsinki.region")]).output, "\(content.count)\n")
        // open(O_TRUNC) of an existing file reaches the model's open (atomic O_TRUNC), not setattr.
        try Data("second\n".utf8).write(to: URL(fileURLWithPath: path("notes.txt")))
        XCTAssertEqual(run("/bin/cat", [path("notes.txt")]).output, "second\n")
    }

    /// The model's verdict reaches the writer through write(); close() has nothing to report
    /// (the bridge turns FLUSH off).
    func testWriteErrorFailsTheWriteAndCloseSucceeds() {
        let descriptor = open(path("broken.bad"), O_CREAT | O_WRONLY, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(errnoOf { Int32(write(descriptor, "x", 1)) }, EINVAL)
        XCTAssertEqual(errnoOf { close(descriptor) }, 0)
    }

    func testRefusedChangesCarryTheirErrno() {
        XCTAssertEqual(errnoOf { truncate(path("notes.txt"), 0) }, EPERM)
        XCTAssertEqual(errnoOf { chmod(path("notes.txt"), 0o600) }, EPERM)
        XCTAssertEqual(errnoOf { mkdir(path("newdir"), 0o755) }, EROFS)
        XCTAssertEqual(errnoOf { unlink(path("hello.txt")) }, EROFS)
        XCTAssertEqual(errnoOf { open(path("docs/new.txt"), O_CREAT | O_WRONLY, 0o644) }, EROFS)
        XCTAssertEqual(errnoOf { rmdir(path("docs")) }, ENOTEMPTY)
        XCTAssertEqual(errnoOf { rename(path("hello.txt"), path("bye.txt")) }, EPERM)
        XCTAssertEqual(errnoOf { unlink(path("missing")) }, ENOENT)
    }

    func testTouchSucceeds() {
        XCTAssertEqual(run("/usr/bin/touch", [path("notes.txt")]).status, 0)
    }

    func testUnlinkRmdirAndRename() throws {
        XCTAssertEqual(errnoOf { rename(path("notes.txt"), path("renamed.txt")) }, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: path("renamed.txt")), Data("first\n".utf8))
        var status = stat()
        XCTAssertEqual(errnoOf { stat(path("notes.txt"), &status) }, ENOENT)
        XCTAssertEqual(errnoOf { unlink(path("renamed.txt")) }, 0)
        XCTAssertEqual(errnoOf { stat(path("renamed.txt"), &status) }, ENOENT)
        XCTAssertEqual(errnoOf { rmdir(path("empty")) }, 0)
        XCTAssertFalse(try listing(root).contains("empty"))
    }

    func testExtendedAttributes() {
        let file = path("notes.txt")
        XCTAssertEqual(XAttr.get(file, "user.test.state", nil, 0), 8)
        XCTAssertEqual(xattr(file, "user.test.state"), "inactive")
        var small = [CChar](repeating: 0, count: 3)
        XCTAssertEqual(errnoOf { Int32(XAttr.get(file, "user.test.state", &small, 3)) }, ERANGE)
        XCTAssertEqual(errnoOf { XAttr.set(file, "user.test.state", "active", 6, 0) }, 0)
        XCTAssertEqual(xattr(file, "user.test.state"), "active")
        XCTAssertEqual(errnoOf { Int32(XAttr.get(file, "user.other", nil, 0)) }, ENODATA)
        XCTAssertEqual(errnoOf { XAttr.set(file, "user.other", "x", 1, 0) }, EPERM)
        let size = XAttr.list(file, nil, 0)
        XCTAssertEqual(size, "user.test.state".utf8.count + 1)
        var names = [CChar](repeating: 0, count: max(0, size))
        XCTAssertEqual(XAttr.list(file, &names, names.count), size)
        XCTAssertEqual(String(decoding: names.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self), "user.test.state")
    }

    private func xattr(_ file: String, _ name: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = XAttr.get(file, name, &buffer, buffer.count)
        return count < 0 ? nil : String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
