import Basics
import Downloader
import Foundation
import PackStore
import StyleModel
import TestSupport
import XCTest

/// Base class of the whole-download tests: a temporary database file, the test's server
/// (stopped in tearDown), the Helsinki fixture region, and the byte-for-byte comparison of what
/// was stored with what the origin serves.
class PackDownloadTestCase: PackFSTestCase {
    /// The database file's name in `temp`; a test may switch files between downloads.
    var databaseFile = "packs.db"
    var path: String { temp.path(databaseFile) }


    /// 322 resources at zoom 14: the style, a TileJSON, 4 sprite files, 291 glyph ranges, 25 tiles.
    func helsinki(_ base: String, maxZoom: Double? = 14) -> RegionDefinition {
        RegionDefinition(
            styleURL: base + "/styles/bright.json",
            area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)), minZoom: 0, maxZoom: maxZoom)
    }

    /// Many retries with a short backoff, for downloads through a fault server failing often: some
    /// paths fail ten times in a row.
    var quickRetries: DownloadOptions {
        var options = DownloadOptions()
        options.http.retry.baseDelay = 0.01
        options.http.retry.maxDelay = 0.05
        options.http.retry.maxAttempts = 40
        return options
    }

    /// A download of `definition` into pack `name` (created or redefined), not yet run, and the
    /// database it writes to (close it when done).
    func makeDownload(_ definition: RegionDefinition, name: String = "helsinki",
                      options: DownloadOptions = DownloadOptions(), mode: PackDownload.Mode = .download) throws
        -> (PackDownload, OfflineDatabase) {
        let database = try OfflineDatabase.open(path: path, mode: .mount)
        let pack = try database.definePack(name: name, definition: definition, metadata: .object(["trip": .string("test")]))
        return (PackDownload(database: database, region: pack.id, definition: definition, options: options, mode: mode), database)
    }

    func download(_ definition: RegionDefinition, name: String = "helsinki", options: DownloadOptions = DownloadOptions(),
                  mode: PackDownload.Mode = .download,
                  membersLeft: (@Sendable ([TileKey], [String]) -> Void)? = nil) throws -> PackStatus {
        let (download, database) = try makeDownload(definition, name: name, options: options, mode: mode)
        defer { try? database.close() }
        download.onMembersLeft = membersLeft
        return download.run()
    }

    /// `download`, which must complete, then the database opened read-only to read what it stored.
    func downloadWhole(_ definition: RegionDefinition, file: StaticString = #filePath, line: UInt = #line) throws
        -> OfflineDatabase {
        let status = try download(definition)
        XCTAssertEqual(status.state, .complete, status.error ?? "", file: file, line: line)
        return try OfflineDatabase.open(path: path, mode: .readOnly)
    }

    /// Every stored resource and tile of pack `name`, decoded, must equal what `server` serves
    /// for its URL (a tile stored as "no content" must be one the server lacks).
    func assertStoredContentMatchesOrigin(_ server: TestServer, name: String = "helsinki",
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        defer { try? database.close() }
        let pack = try database.pack(named: name)
        for url in try database.resourceURLs(of: pack.id) {
            let stored = try XCTUnwrap(database.resource(url: url)?.data.decoded(), url, file: file, line: line)
            let expected = try server.expectedContent(String(url.dropFirst(server.baseURL.count)))
            XCTAssertEqual(stored, expected, url, file: file, line: line)
        }
        for key in try database.tileKeys(of: pack.id) {
            let url = TileURLTemplate.url(for: key)
            let stored = try database.tile(key)?.data.decoded()
            let expected = try? server.expectedContent(String(url.dropFirst(server.baseURL.count)))
            XCTAssertEqual(stored, expected, url, file: file, line: line)
        }
    }
}
