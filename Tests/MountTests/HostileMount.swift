import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import PackStore
import TestSupport
import XCTest

/// What the hostile-input mount tests share: a `packfs mount` daemon on a fresh database, a
/// world holding the corpus's documents for nginx to serve, and raw writes whose errno counts.
class HostileMountTestCase: XCTestCase {
    var mount: MountHelper!
    var server: TestServer!
    var world: TemporaryDirectory?
    var db: String { mount.directory.path("packs.db") }
    var packs: String { mount.path + "/packs" }
    let helsinki = "[24.93, 60.16, 24.96, 60.18]"

    override func setUpWithError() throws {
        try MountHelper.requireFUSE()
        mount = try MountHelper()
    }

    override func tearDown() {
        mount?.unmount()
        server?.stop()
        world?.remove()
    }

    func packfs(_ arguments: [String]) throws -> (status: Int32, text: String) {
        try Command.run(BuiltProducts.executable("packfs").path, arguments, timeout: 120)
    }

    func mountPackFS(_ database: String? = nil) throws {
        let outcome = try packfs(["mount", database ?? db, mount.path])
        XCTAssertEqual(outcome.status, 0, outcome.text)
        XCTAssertTrue(eventually(timeout: 30) { mount.isMounted }, "no mount at \(mount.path)")
    }

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
        Data("{\"style\": \"\(style)\", \"bounds\": \(helsinki), \"minzoom\": 0, \"maxzoom\": 1}\n".utf8)
    }

    /// A pack made with `cp` of a good region file and waited for; returns every file it shows.
    func goodPack(_ name: String) throws -> [String: Data] {
        let style = server.baseURL + "/styles/bright.json"
        XCTAssertEqual(writeFile(packs + "/\(name).region", region(style: style)), 0)
        XCTAssertEqual(try waitForState(name, ["complete"]), "complete")
        return try files(under: packs + "/" + name)
    }

    /// Polls progress.json until the pack's state is one of `states`; returns the last state
    /// seen (and `progress` holds the last document).
    @discardableResult
    func waitForState(_ pack: String, _ states: Set<String>, timeout: TimeInterval = 120) throws -> String? {
        var last: String?
        _ = eventually(timeout: timeout) {
            guard let data = FileManager.default.contents(atPath: "\(packs)/\(pack)/progress.json") else { return false }
            last = JSONValue.parse(data)?["state"]?.string
            return last.map(states.contains) ?? false
        }
        return last
    }

    func progress(_ pack: String) -> JSONValue? {
        FileManager.default.contents(atPath: "\(packs)/\(pack)/progress.json").flatMap(JSONValue.parse)
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
