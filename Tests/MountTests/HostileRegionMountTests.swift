import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// The corpus's bad region files and pack names written into a real mount served by the
/// `packfs` daemon: the write that decides each text fails with EINVAL (text that stops short:
/// its close, silently), `<name>.error` names the field, no pack appears, and the pack made
/// before them stays readable byte for byte.
final class HostileRegionMountTests: HostileMountTestCase {
    /// The tests only read from nginx: one for both.
    override class func makeServer() throws -> TestServer? { try TestServer.nginx() }
    override class var sharesServer: Bool { true }

    func testEveryBadRegionFileFailsItsWriteAndSaysWhy() throws {
        try mountPackFS()
        let good = try goodPack("good")
        let cases = try HostileCorpus.cases("region")
        for item in cases {
            let name = "r-" + item.stem
            let status = writeFile(packs + "/\(name).region", try item.data(base: server.baseURL))
            XCTAssertTrue(status == EINVAL || status == 0, "\(item): errno \(status)")
            // Text that stops short is judged when its last descriptor goes: after close() returns.
            var reason: String?
            _ = eventually(timeout: 10) {
                reason = try? String(contentsOfFile: packs + "/\(name).error", encoding: .utf8)
                return reason != nil
            }
            assertMentions(reason ?? "(no \(name).error)", item.strings("mount_expect") ?? item.expect ?? [], item)
            XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/" + name), "\(item) made a pack")
        }
        assertServing()
        assertUnchanged("good", good)
    }

    /// The names of the corpus a kernel can pass (no `/` or NUL), as region file names: refused
    /// at create (EINVAL, or ENAMETOOLONG from the kernel itself), and a name that differs from
    /// a pack's only in normalisation is refused by its write, its `.error` saying so.
    func testBadPackNamesAreRefused() throws {
        try mountPackFS()
        let listing = try JSONValue.parsing(HostileCorpus.cases("name")[0].data())
        for entry in listing["invalid"]?.array ?? [] {
            let name = try XCTUnwrap(entry["name"]?.string)
            guard !name.contains("/"), !name.contains("\0") else { continue }
            let status = writeFile(packs + "/\(name).region", region(style: server.baseURL + "/styles/bright.json"))
            XCTAssertTrue([EINVAL, ENAMETOOLONG].contains(status), "\(name.debugDescription): errno \(status)")
        }
        let pair = try XCTUnwrap(listing["normalisation"])
        let (first, second) = (try XCTUnwrap(pair["first"]?.string), try XCTUnwrap(pair["second"]?.string))
        let good = try goodPack(first)
        XCTAssertEqual(writeFile(packs + "/\(second).region", region(style: server.baseURL + "/styles/bright.json")), EINVAL)
        let reason = try String(contentsOfFile: packs + "/\(second).error", encoding: .utf8)
        assertMentions(reason, pair["expect"]?.array?.compactMap(\.string) ?? [], "normalisation twin")
        let names = try FileManager.default.contentsOfDirectory(atPath: packs)
        XCTAssertEqual(names.filter { !$0.hasSuffix(".error") }.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                       [first, first + ".region"].map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
        assertServing()
        assertUnchanged(first, good)
    }

    /// A name of 248 bytes is the longest: its region file lists with `ls -l` (which fails on a
    /// name over 255 bytes); a rename to 249 bytes is refused. A name whose bytes are not UTF-8
    /// is refused at create, never made into U+FFFD.
    func testNameLengthsAndBytesThatAreNoUTF8() throws {
        try mountPackFS()
        let longest = String(repeating: "n", count: 248)
        XCTAssertEqual(writeFile(packs + "/\(longest).region", region(style: server.baseURL + "/styles/bright.json")), 0)
        let listing = try Command.run("/bin/ls", ["-l", packs])
        XCTAssertEqual(listing.status, 0, listing.text)
        XCTAssertTrue(listing.text.contains(longest + ".region"), listing.text)
        // The directory's new name fits a file name but would make one that does not.
        XCTAssertEqual(errnoOf { rename(packs + "/\(longest)", packs + "/\(longest)x") }, EINVAL)
        XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/\(longest).region"))
        var path = Array((packs + "/").utf8) + [0xFF, 0xFE] + Array(".region".utf8) + [0]
        let fd = path.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
        }
        let refused = errno
        if fd >= 0 { close(fd) }
        XCTAssertEqual(fd, -1)
        XCTAssertEqual(refused, EINVAL)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: packs).contains { $0.contains("\u{FFFD}") })
        assertServing()
    }
}
