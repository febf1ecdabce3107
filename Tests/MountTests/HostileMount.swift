import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import PackStore
import TestSupport
import XCTest

/// What the hostile-input mount tests share: a `packfs mount` daemon on a fresh database, a
/// world holding the corpus's documents for nginx to serve (in the test's directory), and raw
/// writes whose errno counts.
class HostileMountTestCase: DaemonMountTestCase {
    /// A class that needs an origin starts its own.
    override class func makeServer() throws -> TestServer? { nil }

    /// The daemon still answers: statfs goes to it, and packs/ lists.
    func assertServing(file: StaticString = #filePath, line: UInt = #line) {
        var figures = statvfs()
        XCTAssertTrue(mount.isMounted, "the mount is gone", file: file, line: line)
        XCTAssertEqual(statvfs(mount.path, &figures), 0, "statfs: errno \(errno)", file: file, line: line)
        XCTAssertNoThrow(try FileManager.default.contentsOfDirectory(atPath: packs), file: file, line: line)
    }

    /// `bytes` written to `path` as a shell redirection writes them: open(O_CREAT|O_TRUNC), write
    /// until done or refused, close. Returns the errno that stopped it (0: none).
    func writeFile(_ path: String, _ bytes: Data) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 { return errno }
            offset += written
        }
        return 0
    }

    /// A region file for `style` over central Helsinki at z0-1 (a few tiles a source).
    func region(style: String) -> Data {
        Data(Self.region(style: style, maxZoom: 1).utf8)
    }

    /// A pack made with `cp` of a good region file and waited for; returns every file it shows.
    func goodPack(_ name: String) throws -> [String: Data] {
        let style = server.baseURL + "/styles/bright.json"
        XCTAssertEqual(writeFile(packs + "/\(name).region", region(style: style)), 0)
        XCTAssertEqual(waitForState(name), "complete")
        return try files(under: packs + "/" + name)
    }

    /// Every regular file under `directory`, by relative path, with its bytes.
    func files(under directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: directory) {
            var isDirectory: ObjCBool = false
            let full = directory + "/" + path
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[path] = try Data(contentsOf: URL(fileURLWithPath: full))
        }
        return files
    }

    func assertUnchanged(_ name: String, _ before: [String: Data], file: StaticString = #filePath, line: UInt = #line) {
        let after = (try? files(under: packs + "/" + name)) ?? [:]
        XCTAssertEqual(Set(after.keys), Set(before.keys), "\(name)'s files changed", file: file, line: line)
        for (path, bytes) in before where after[path] != bytes {
            XCTFail("\(name)/\(path) is not the bytes it was", file: file, line: line)
        }
    }
}
