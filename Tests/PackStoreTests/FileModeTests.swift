import Foundation
import PackStore
import XCTest

/// The mode of the files PackFS creates (docs/design.md §1): the owner's alone unless asked.
final class FileModeTests: StoreTestCase {
    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    func testANewDatabaseAndItsLogAreTheOwnersAlone() throws {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        _ = try database.setAmbientLimit(1 << 20)
        XCTAssertEqual(try mode(path), 0o600)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"))
        XCTAssertEqual(try mode(path + "-wal"), 0o600)
        XCTAssertEqual(try mode(path + "-shm"), 0o600)
        try database.close()
    }

    func testAGroupModeIsKeptWhateverTheUmask() throws {
        let old = umask(0o077)
        defer { umask(old) }
        let database = try OfflineDatabase.open(path: path, mode: .command, fileMode: 0o640)
        try database.close()
        XCTAssertEqual(try mode(path), 0o640)
    }

    func testAnExistingFileKeepsItsMode() throws {
        try OfflineDatabase.open(path: path).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        _ = try database.setAmbientLimit(1 << 20)
        XCTAssertEqual(try mode(path), 0o644)
        XCTAssertEqual(try mode(path + "-wal"), 0o644, "SQLite gives the log the file's mode")
        try database.close()
        try OfflineDatabase.reset(path: path, fileMode: 0o600)
        XCTAssertEqual(try mode(path), 0o644)
    }
}
