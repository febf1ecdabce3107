import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// A region file's `tile_storage` through the `packfs` daemon (docs/mount.md, "The region file"): a pack
/// written with `"inflated"` stores every tile it downloads as served (`compressed = 0`) and reads back
/// byte for byte as the same pack stored compressed; a value PackFS does not know fails the write.
final class TileStorageMountTests: DaemonMountTestCase {
    /// The tests only read from nginx.
    override class var sharesServer: Bool { true }

    /// Zooms 0-12 of the fixture: a vector and a raster source, few tiles.
    let maxZoom = 12

    func testAnInflatedPackStoresServedBytesAndReadsAsTheCompressedPack() throws {
        let compressed = temp.path("compressed.db")
        let download = try packfs(["download", compressed, "helsinki", try regionFile("plain.json", maxZoom: maxZoom)])
        XCTAssertEqual(download.status, 0, download.text)

        try mountPackFS()
        let inflated = try regionFile("inflated.json", maxZoom: maxZoom, extra: #""tile_storage": "inflated""#)
        try copyRegion(inflated, to: "helsinki")
        waitForState("helsinki")
        let region = try String(contentsOfFile: packs + "/helsinki.region", encoding: .utf8)
        XCTAssertTrue(region.contains(#""tile_storage": "inflated""#), region)
        let servedInflated = try tileFiles()
        unmountPackFS()

        let rowsInflated = try tileRows(db)
        let rowsCompressed = try tileRows(compressed)
        XCTAssertEqual(Set(rowsInflated.keys), Set(rowsCompressed.keys))
        XCTAssertTrue(rowsCompressed.values.contains { $0.compressed }, "the compressed pack deflated no tile: nothing compared")
        for (key, row) in rowsInflated {
            XCTAssertFalse(row.compressed, key)
            XCTAssertEqual(row.bytes, try rowsCompressed[key].flatMap(ServedTile.content(of:)), key)
        }

        try mountPackFS(database: compressed)
        let servedCompressed = try tileFiles()
        XCTAssertGreaterThan(servedCompressed.count, 5)
        XCTAssertEqual(servedInflated, servedCompressed)
    }

    /// docs/mount.md: the choice applies to tiles as they are stored; a region file written again with
    /// the default and more zooms stores the new tiles compressed and rewrites none of the old.
    func testWritingTheFileAgainStoresOnlyNewTilesInTheNewForm() throws {
        try mountPackFS()
        try copyRegion(try regionFile("inflated.json", maxZoom: 10, extra: #""tile_storage": "inflated""#), to: "helsinki")
        waitForState("helsinki")
        try copyRegion(try regionFile("plain.json", maxZoom: maxZoom), to: "helsinki")
        waitForState("helsinki")
        let region = try String(contentsOfFile: packs + "/helsinki.region", encoding: .utf8)
        XCTAssertFalse(region.contains("tile_storage"), region)
        unmountPackFS()

        let rows = try tileRows(db)
        let deflated = rows.filter { $0.value.compressed }.keys
        XCTAssertFalse(deflated.isEmpty, "the new tiles were stored compressed")
        for key in deflated {
            let zoom = Int(key.split(separator: " ").last?.split(separator: "/").first ?? "") ?? -1
            XCTAssertGreaterThan(zoom, 10, "\(key): a tile stored inflated was rewritten")
        }
    }

    func testATileStorageOtherThanCompressedOrInflatedFailsTheWriteNamingTheField() throws {
        try mountPackFS()
        let bad = try regionFile("bad.json", maxZoom: maxZoom, extra: #""tile_storage": "gzip""#)
        let cp = try Command.run("/bin/cp", [bad, "\(packs)/bad.region"])
        XCTAssertNotEqual(cp.status, 0, cp.text)
        XCTAssertTrue(cp.text.contains("Invalid argument"), cp.text)
        let reason = try String(contentsOfFile: packs + "/bad.error", encoding: .utf8)
        XCTAssertTrue(reason.contains(#"tile_storage: must be "compressed" or "inflated", not "gzip""#), reason)
        XCTAssertFalse(FileManager.default.fileExists(atPath: packs + "/bad"))
    }

    /// Every tile file of pack `helsinki` in the mount (every source's), by path under the pack.
    private func tileFiles() throws -> [String: Data] {
        let pack = packs + "/helsinki"
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: pack)
        where path.range(of: #"^(sources/[^/]+/)?\d+/\d+/\d+\.\w+$"#, options: .regularExpression) != nil {
            files[path] = try Data(contentsOf: URL(fileURLWithPath: pack + "/" + path))
        }
        return files
    }

    /// The rows of every tile with content in database `path`, by template and z/x/y.
    private func tileRows(_ path: String) throws -> [String: StoredData] {
        // The daemon that just unmounted may hold the file's lock a moment longer.
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(30)
        return try DatabaseQueue(path: path, configuration: configuration).read { db in
            var rows: [String: StoredData] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT url_template, z, x, y, data, compressed FROM tiles WHERE data IS NOT NULL") {
                let key = "\(try row.decode(String.self, atIndex: 0)) \(try row.decode(Int64.self, atIndex: 1))/"
                    + "\(try row.decode(Int64.self, atIndex: 2))/\(try row.decode(Int64.self, atIndex: 3))"
                rows[key] = StoredData(bytes: try row.decode(Data.self, atIndex: 4), compressed: try row.decode(Bool.self, atIndex: 5))
            }
            return rows
        }
    }
}
