import Basics
import Downloader
import Foundation
import PackStore
import SQLiteDB
import StyleModel
import TestSupport
import XCTest

/// `pmtiles://` sources end to end: Fixtures/world/tiles/helsinki.pmtiles (the Helsinki tiles,
/// written by the reference Python package) served by nginx, read with range requests.
final class ArchiveDownloadTests: PackDownloadTestCase {
    static let archivePath = "/tiles/helsinki.pmtiles"

    func region(_ base: String) -> RegionDefinition {
        var definition = helsinki(base)
        definition.styleURL = base + "/styles/bright-pmtiles.json"
        return definition
    }

    func sourceURL(_ base: String) -> String { "pmtiles://" + base + Self.archivePath }

    /// The requests nginx answered for the archive.
    func archiveRequests(_ nginx: TestServer, path: String = archivePath) throws -> [AccessLogEntry] {
        try nginx.settledAccessLog().filter { $0.uri == path }
    }

    func testAnArchiveSourceIsReadByMergedRangesIntoTheSameTilesAsItsDirectoryTree() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let database = try downloadWhole(region(nginx.baseURL))
        let pack = try database.pack(named: "helsinki")
        let template = sourceURL(nginx.baseURL) + "/{z}/{x}/{y}"
        let tiles = try database.tileKeys(of: pack.id).filter { $0.urlTemplate == template }
        XCTAssertEqual(tiles.count, 19, "every Helsinki tile of the region, under the archive's one key")
        for key in tiles {
            let stored = try XCTUnwrap(database.tile(key)?.data.decoded(), "\(key)")
            let origin = try nginx.expectedContent("/tiles/helsinki/\(key.z)/\(key.x)/\(key.y).pbf")
            XCTAssertEqual(stored, origin, "tile \(key.z)/\(key.x)/\(key.y): raw bytes, as the z/x/y server has them")
        }
        let tileJSON = try XCTUnwrap(database.resource(url: sourceURL(nginx.baseURL))?.data.decoded())
        let json = try XCTUnwrap(JSONValue.parse(tileJSON))
        XCTAssertEqual(json["tiles"], .array([.string(template)]))
        XCTAssertEqual(json["maxzoom"], .number(14))
        XCTAssertNotNil(json["vector_layers"]?.array, "the archive's metadata carries over")

        let requests = try archiveRequests(nginx)
        XCTAssertEqual(requests.map(\.status), [206, 206], "the opening range, then one merged range for 19 tiles")
        XCTAssertEqual(requests.first?.range, "bytes=0-16383")
        XCTAssertTrue(requests.allSatisfy { $0.acceptEncoding == "identity" })
        XCTAssertFalse(requests[1].ifMatch.isEmpty, "tile ranges name the archive's version")
        let needed = try tiles.reduce(0) { sum, key in
            sum + (try archiveEntryLength(nginx, key))
        }
        XCTAssertLessThanOrEqual(Double(requests[1].bytes), 1.1 * Double(needed), "bytes fetched against the tiles' own")
        XCTAssertTrue(try nginx.accessLog().allSatisfy { !$0.uri.hasPrefix("/tiles/helsinki/") })
    }

    func testRefreshOfAnUnchangedArchiveCostsOneRequest() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        XCTAssertEqual(try download(region(nginx.baseURL)).state, .complete)
        let before = try archiveRequests(nginx).count
        let status = try download(region(nginx.baseURL), mode: .refresh)
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        let after = try archiveRequests(nginx).dropFirst(before)
        XCTAssertEqual(after.map(\.status), [304], "one conditional opening range, answered Not Modified")
        XCTAssertFalse(after.first?.ifNoneMatch.isEmpty ?? true)
    }

    func testRefreshOfAChangedArchiveRewritesOnlyTheTilesThatChanged() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        XCTAssertEqual(try download(region(nginx.baseURL)).state, .complete)
        let served = try XCTUnwrap(nginx.servedRoot).appendingPathComponent("tiles/helsinki.pmtiles").path
        let edit = ProjectPaths.root.appendingPathComponent("Tests/interchange/pmtiles_edit.py").path
        let edited = try Command.run("/usr/bin/env", ["python3", edit, served, served + ".new", "14/9326/4742"])
        XCTAssertEqual(edited.status, 0, edited.text)
        XCTAssertEqual(rename(served + ".new", served), 0)
        // Every rewrite of a tile's bytes from here on is logged by the database itself.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE rewritten (z, x, y);
                CREATE TRIGGER log_rewrites AFTER UPDATE OF data ON tiles
                BEGIN INSERT INTO rewritten VALUES (new.z, new.x, new.y); END;
                """)
        }
        try queue.close()

        let status = try download(region(nginx.baseURL), mode: .refresh)
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        let reopened = try DatabaseQueue(path: path)
        let rewritten = try reopened.read { db in try Row.fetchAll(db, sql: "SELECT z, x, y FROM rewritten") }
        XCTAssertEqual(rewritten.map { "\($0[0] as Int)/\($0[1] as Int)/\($0[2] as Int)" }, ["14/9326/4742"])
        try reopened.close()
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        let key = TileKey(urlTemplate: sourceURL(nginx.baseURL) + "/{z}/{x}/{y}", pixelRatio: 1, z: 14, x: 9326, y: 4742)
        let label = Data("changed 14/9326/4742".utf8)
        XCTAssertEqual(try database.tile(key)?.data.decoded(), Data([0x1A, UInt8(label.count + 2), 0x0A, UInt8(label.count)]) + label)
        let requests = try archiveRequests(nginx)
        XCTAssertTrue(requests.allSatisfy { [206, 304].contains($0.status) }, "\(requests.map(\.status))")
    }

    func testADamagedArchiveStopsThePackInErrorNamingIt() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let served = try XCTUnwrap(nginx.servedRoot).appendingPathComponent("tiles/helsinki.pmtiles")
        try Data("PMTiles".utf8 + [7] + [UInt8](repeating: 0, count: 200)).write(to: served)
        let status = try download(region(nginx.baseURL))
        XCTAssertEqual(status.state, .error)
        let error = status.error ?? ""
        XCTAssertTrue(error.contains(sourceURL(nginx.baseURL)) && error.contains("version 7"), error)
    }

    /// Retries apply to ranges as to every request: resets, cut bodies, 5xx and 429 on the
    /// archive's path still give a pack whose tiles are the archive's, byte for byte.
    func testFaultsOnTheArchiveStillGiveAByteExactPack() throws {
        let faults = try TestServer.faultServer([
            "--seed", "5", "--rate-500", "0.15", "--rate-503", "0.15", "--rate-429", "0.1", "--rate-reset", "0.15",
            "--rate-truncate", "0.15", "--retry-after", "0",
        ])
        server = faults
        let status = try download(region(faults.baseURL), options: quickRetries)
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        let ranges = try faults.accessLog().filter { $0.uri == Self.archivePath }
        XCTAssertGreaterThan(ranges.filter { $0.fault != nil }.count, 0, "faults hit the archive's ranges")
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        let template = sourceURL(faults.baseURL) + "/{z}/{x}/{y}"
        let tiles = try database.tileKeys(of: RegionID(1)).filter { $0.urlTemplate == template }
        XCTAssertEqual(tiles.count, 19)
        for key in tiles {
            XCTAssertEqual(
                try database.tile(key)?.data.decoded(),
                try faults.expectedContent("/tiles/helsinki/\(key.z)/\(key.x)/\(key.y).pbf"), "\(key)")
        }
    }

    /// `--allow-host` judges the archive's own host; `--rewrite` points the archive at a mirror
    /// while its tiles keep the archive's stable key.
    func testHostRulesAndRewritesApplyToTheArchive() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let root = try XCTUnwrap(nginx.servedRoot)
        let mirrored = "http://mirror.invalid/helsinki.pmtiles"
        let style = try String(contentsOf: root.appendingPathComponent("styles/bright-pmtiles.json"), encoding: .utf8)
            .replacingOccurrences(of: nginx.baseURL + Self.archivePath, with: mirrored)
        try style.write(to: root.appendingPathComponent("styles/mirrored.json"), atomically: true, encoding: .utf8)
        var definition = region(nginx.baseURL)
        definition.styleURL = nginx.baseURL + "/styles/mirrored.json"

        var refused = DownloadOptions()
        refused.urlPolicy = URLPolicy(allowedHosts: ["127.0.0.1"])
        let status = try download(definition, options: refused)
        XCTAssertEqual(status.state, .error)
        XCTAssertTrue(status.error?.contains("mirror.invalid") == true && status.error?.contains("allow") == true, status.error ?? "")

        var rewritten = DownloadOptions()
        rewritten.urlPolicy = URLPolicy(rewrites: [URLRewrite(from: mirrored, to: nginx.baseURL + Self.archivePath)])
        let second = try download(definition, name: "mirrored", options: rewritten)
        XCTAssertEqual(second.state, .complete, second.error ?? "")
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        let keys = try database.tileKeys(of: database.pack(named: "mirrored").id)
        XCTAssertEqual(keys.filter { $0.urlTemplate == "pmtiles://\(mirrored)/{z}/{x}/{y}" }.count, 19)
    }

    /// An archive whose root outgrew 16 KiB (21,845 tiles, zooms 0-7, by the reference writer):
    /// the tiles a region needs are found through its leaf directories, each read once.
    func testTilesAreFoundThroughLeafDirectories() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let root = try XCTUnwrap(nginx.servedRoot)
        let writer = ProjectPaths.root.appendingPathComponent("Tests/interchange/pmtiles_write.py").path
        let written = try Command.runApart("/usr/bin/env", ["python3", writer, root.path + "/tiles/world.pmtiles", "7"])
        XCTAssertEqual(written.status, 0, written.stderr)
        let expected = try XCTUnwrap(JSONValue.parse(Data(written.stdout.utf8))?.object)
        try """
            {"version": 8, "sources": {"world": {"type": "vector", "url": "pmtiles://\(nginx.baseURL)/tiles/world.pmtiles"}},
             "layers": []}
            """.write(to: root.appendingPathComponent("styles/world.json"), atomically: true, encoding: .utf8)
        let definition = RegionDefinition(
            styleURL: nginx.baseURL + "/styles/world.json",
            area: .bounds(Bounds(west: -10, south: 35, east: 30, north: 60)), minZoom: 0, maxZoom: 7)
        let status = try download(definition, name: "world")
        XCTAssertEqual(status.state, .complete, status.error ?? "")
        let database = try OfflineDatabase.open(path: path, mode: .readOnly)
        let keys = try database.tileKeys(of: database.pack(named: "world").id)
        XCTAssertEqual(keys.count, status.requiredTiles)
        XCTAssertGreaterThan(keys.count, 300)
        for key in keys {
            let stored = try XCTUnwrap(database.tile(key)?.data.decoded(), "\(key)")
            let written = try XCTUnwrap(Data(base64Encoded: expected["\(key.z)/\(key.x)/\(key.y)"]?.string ?? ""))
            XCTAssertEqual(stored, try Zlib.inflate(written, windowBits: 31), "\(key.z)/\(key.x)/\(key.y)")
        }
        let requests = try archiveRequests(nginx, path: "/tiles/world.pmtiles")
        let ranges = Set(requests.map(\.range))
        XCTAssertEqual(ranges.count, requests.count, "no range asked twice: \(requests.map(\.range))")
        // Tiny tiles (150 bytes) over 8 zooms: what bounds merging here is the overfetch budget.
        XCTAssertLessThan(requests.count, keys.count / 4, "merged: \(requests.map(\.range))")
    }

    /// `packfs estimate` reads the archive's header and directories, never its tiles: the sampled
    /// tiles' sizes are their entries' lengths.
    func testTheEstimateReadsTheArchiveNotItsTiles() throws {
        let nginx = try TestServer.nginx()
        server = nginx
        let estimate = try Estimate.make(for: region(nginx.baseURL), options: DownloadOptions())
        let source = try XCTUnwrap(estimate.sources.first { $0.id == "openmaptiles" })
        XCTAssertEqual(source.urlTemplate, sourceURL(nginx.baseURL) + "/{z}/{x}/{y}")
        XCTAssertEqual(source.tiles, 19)
        XCTAssertEqual(source.unknownTiles, 0)
        XCTAssertGreaterThan(source.bytes, 100_000, "the z14 tiles are 20-125 KB")
        XCTAssertEqual(try archiveRequests(nginx).map(\.range), ["bytes=0-16383"])
    }

    /// The bytes the archive holds for tile `key` (gzip, as written), by the reference reader.
    private func archiveEntryLength(_ nginx: TestServer, _ key: TileKey) throws -> Int {
        if archiveLengths.isEmpty {
            let reader = ProjectPaths.root.appendingPathComponent("Tests/interchange/pmtiles_read.py").path
            let archive = try XCTUnwrap(nginx.servedRoot).appendingPathComponent("tiles/helsinki.pmtiles").path
            let outcome = try Command.runApart("/usr/bin/env", ["python3", reader, archive])
            let tiles = try XCTUnwrap(JSONValue.parse(Data(outcome.stdout.utf8))?["tiles"]?.object, outcome.stderr)
            for (name, value) in tiles { archiveLengths[name] = Data(base64Encoded: value.string ?? "")?.count ?? 0 }
        }
        return archiveLengths["\(key.z)/\(key.x)/\(key.y)"] ?? 0
    }

    private var archiveLengths: [String: Int] = [:]
}
