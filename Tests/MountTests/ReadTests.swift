import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// Reading through the kernel: bytes, sizes, listings, errno, concurrency.
final class ReadTests: MountedTestCase {
    func testFilesHaveExactBytesAndSizes() throws {
        XCTAssertEqual(FileManager.default.contents(atPath: path("hello.txt")), MemoryFilesystem.hello)
        XCTAssertEqual(FileManager.default.contents(atPath: path("large.bin")), MemoryFilesystem.large)
        XCTAssertEqual(run("/bin/cat", [path("docs/readme.md")]).output, "# Readme\n")
        XCTAssertEqual(run("/usr/bin/stat", ["-c", "%s %a %F", path("large.bin")]).output,
                       "1048576 444 regular file\n")
        XCTAssertEqual(run("/usr/bin/stat", ["-c", "%a %F", path("docs")]).output, "555 directory\n")
    }

    func testReadsAtOffsets() throws {
        let descriptor = open(path("large.bin"), O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1000)
        XCTAssertEqual(pread(descriptor, &buffer, 1000, 700_001), 1000)
        XCTAssertEqual(Data(buffer), MemoryFilesystem.large[700_001..<701_001])
        XCTAssertEqual(pread(descriptor, &buffer, 1000, (1 << 20) - 10), 10)
        XCTAssertEqual(pread(descriptor, &buffer, 1000, 1 << 20), 0)
    }

    func testFailuresCarryTheirErrno() {
        var status = stat()
        XCTAssertEqual(errnoOf { stat(path("missing"), &status) }, ENOENT)
        XCTAssertEqual(errnoOf { open(path("docs/missing"), O_RDONLY) }, ENOENT)
        XCTAssertEqual(errnoOf { open(path("hello.txt"), O_WRONLY) }, EROFS)
        XCTAssertEqual(errnoOf { open(path("hello.txt/x"), O_RDONLY) }, ENOTDIR)
        XCTAssertEqual(run("/bin/ls", [path("missing")]).status, 2)
    }

    func testListsTwentyThousandEntriesInCookieOrder() throws {
        let names = try listing(path("many"))
        XCTAssertEqual(names.count, MemoryFilesystem.manyCount)
        XCTAssertEqual(names, (0..<MemoryFilesystem.manyCount).map { "entry-\($0)" })
        let ls = run("/bin/ls", ["-f", path("many")])
        XCTAssertEqual(ls.output.split(separator: "\n").count, MemoryFilesystem.manyCount + 2)
        XCTAssertEqual(try listing(root).sorted(), ["docs", "empty", "hello.txt", "large.bin", "many", "notes.txt"])
        XCTAssertEqual(FileManager.default.contents(atPath: path("many/entry-12345")), Data("12345\n".utf8))
    }

    func testSixteenThreadsReadConcurrently() {
        let failures = LockedState(0)
        let root = self.root
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let descriptor = open(root + "/large.bin", O_RDONLY)
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            // Each thread starts elsewhere and wraps around, so reads overlap in different orders.
            for step in 0..<16 {
                let offset = ((index + step) % 16) * 64 * 1024
                let count = pread(descriptor, &buffer, buffer.count, off_t(offset))
                if count != buffer.count || Data(buffer) != MemoryFilesystem.large[offset..<offset + buffer.count] {
                    failures.withLock { $0 += 1 }
                }
            }
            let name = "many/entry-\(index * 1000)"
            if FileManager.default.contents(atPath: root + "/" + name) != Data("\(index * 1000)\n".utf8) { failures.withLock { $0 += 1 } }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
    }

    func testStatfsAndMountTable() throws {
        var figures = statvfs()
        XCTAssertEqual(statvfs(root, &figures), 0)
        XCTAssertEqual(figures.f_blocks, 1000)
        XCTAssertEqual(figures.f_bsize, 4096)
        XCTAssertTrue(MountHelper.isFUSE(root))
        let table = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        let line = table.split(separator: "\n").first { $0.contains(" \(root) ") }
        XCTAssertNotNil(line)
        XCTAssertTrue(line?.contains("fuse.packfs memfs") ?? false, String(line ?? ""))
    }
}
