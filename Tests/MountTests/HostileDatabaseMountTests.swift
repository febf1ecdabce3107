import Foundation
import PackStore
import TestSupport
import XCTest

/// The corpus's database files given to `packfs list` and `packfs mount`: a file PackFS cannot
/// open is refused with words that say why and left byte for byte; one with hostile contents
/// mounts, and reading every file of the mount leaves the daemon serving.
final class HostileDatabaseMountTests: HostileMountTestCase {
    func testRefusedDatabaseFilesAreLeftByteForByte() throws {
        let cases = try HostileCorpus.databaseCopies(refused: true, in: temp)
        for (item, path) in cases {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let list = try packfs(["list", path])
            if !item.bool("lists") {
                XCTAssertEqual(list.status, 1, "\(item): \(list.text)")
            }
            let mounted = try packfs(["mount", path, mount.path])
            XCTAssertEqual(mounted.status, 1, "\(item): \(mounted.text)")
            assertMentions(mounted.text, item.expect ?? [], item)
            XCTAssertFalse(mount.isMounted, "\(item) mounted")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "\(item) was modified")
        }
    }

    func testHostileDatabaseContentsMountAndEveryFileReads() throws {
        let cases = try HostileCorpus.databaseCopies(refused: false, in: temp)
        for (item, path) in cases {
            let list = try packfs(["list", path])
            XCTAssertEqual(list.status, 0, "\(item): \(list.text)")
            for name in item.strings("packs") ?? [] where name.allSatisfy({ $0.isASCII }) {
                XCTAssertTrue(list.text.contains(name), "\(item): packfs list does not show \(name)")
            }
            try mountPackFS(database: path)
            readEverything(under: mount.path)
            for (pack, words) in item.fields["mount_error"]?.object ?? [:] {
                XCTAssertEqual(waitForState(pack, ["error"], timeout: 30), "error", "\(item)")
                assertMentions(progress(pack)?["error"]?.string ?? "", words.string.map { [$0] } ?? [], item)
            }
            assertServing()
            unmountPackFS()
        }
    }

    /// Lists every directory and reads every file (errors such as EIO for a row that does not
    /// decode are answers; a dead daemon would fail every later call with ENOTCONN).
    private func readEverything(under root: String) {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return XCTFail("no listing of \(root)") }
        var read = 0
        while let relative = walker.nextObject() as? String, read < 2000 {
            _ = FileManager.default.contents(atPath: root + "/" + relative)
            read += 1
        }
    }
}
