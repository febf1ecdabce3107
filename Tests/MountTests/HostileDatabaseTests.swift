import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// A database file is outside data: an app, a copy from another device, a disk error. Rows that
/// schema v6 allows but no writer should make (coordinates outside the grid, texts in number
/// columns, NULLs, data that does not inflate, definitions that do not parse, a style whose names
/// are path tricks) reach the daemon through every operation `find`, `ls -lR`, `du` and `cat`
/// make. Each such file fails alone with its errno; the daemon keeps serving, the good pack reads
/// byte-exact, and the mount changes no stored row.
final class HostileDatabaseTests: HostileMountTestCase {
    var log: String { temp.path("mount.log") }

    override class func makeServer() throws -> TestServer? { try TestServer.nginx() }

    func testHostileRowsFailAloneAndTheDaemonKeepsServing() throws {
        try downloadGoodPack()
        try addHostileRows()
        let before = try rowDigest()
        try mountPackFS(["--log", log])

        for tool in [["/usr/bin/find", packs], ["/bin/ls", "-lR", packs], ["/usr/bin/du", "-s", packs]] {
            let outcome = try Command.run("/usr/bin/timeout", ["120"] + tool)
            XCTAssertNotEqual(outcome.status, 124, "\(tool[0]) hung")
            XCTAssertFalse(outcome.text.contains("not connected"), "the daemon died under \(tool[0]): \(outcome.text)")
        }
        let cat = try Command.run("/usr/bin/timeout", ["120", "/bin/sh", "-c", "find '\(packs)' -type f -exec cat {} + >/dev/null"])
        XCTAssertNotEqual(cat.status, 124, "cat hung")
        // Each failure is EIO with its cause in the daemon's log.
        let failed = cat.text.split(separator: "\n").filter { $0.contains("Input/output error") }
        XCTAssertTrue(failed.contains { $0.hasSuffix("/evil/1/0/1.pbf: Input/output error") }, cat.text)
        let logged = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertGreaterThanOrEqual(logged.split(separator: "\n").filter { $0.contains("with EIO") }.count, failed.count, logged)
        XCTAssertFalse(cat.text.contains("/evil/progress.json"), "damaged bookkeeping reads as unknown: \(cat.text)")
        XCTAssertFalse(cat.text.contains("/evil/style.json"), cat.text)
        XCTAssertFalse(cat.text.contains("not connected"), cat.text)

        XCTAssertTrue(MountHelper.isFUSE(mount.path), "still mounted")
        let names = try FileManager.default.contentsOfDirectory(atPath: packs)
        XCTAssertTrue(Set(["good", "evil", "broken"]).isSubset(of: names), "\(names)")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: packs + "/evil/sources/v/1").sorted(), ["0", "1"],
            "the tiles of the hostile rows inside the grid show; those outside do not")
        let style = try XCTUnwrap(FileManager.default.contents(atPath: packs + "/good/sources/openmaptiles/tiles.json"))
        XCTAssertEqual(JSONValue.parse(style)?["tiles"]?.array?.count, 1, "the good pack still reads")
        for tile in ["0/0/0.pbf", "2/2/1.pbf"] {
            let served = FileManager.default.contents(atPath: packs + "/good/" + tile)
            XCTAssertEqual(served, try server.expectedContent("/tiles/helsinki/" + tile), tile)
        }
        unmountPackFS()
        XCTAssertEqual(try rowDigest(), before, "the mount changed no stored row")
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let check = try DatabaseQueue(path: db, configuration: configuration).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        XCTAssertEqual(check, "ok")
    }

    private func downloadGoodPack() throws {
        let region = try regionFile("good.json", maxZoom: 2)
        let outcome = try packfs(["download", db, "good", region])
        XCTAssertEqual(outcome.status, 0, outcome.text)
    }

    /// Packs "evil" (a style of path tricks and tiles outside every grid), "garbled" (a definition
    /// that is not JSON, a description that is not UTF-8) and rows of wrong types in shared tables.
    private func addHostileRows() throws {
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in
            let good = try String.fetchOne(db, sql: "SELECT definition FROM regions ORDER BY id LIMIT 1") ?? ""
            let evilStyle = "http://127.0.0.1:1/evil/style.json"
            let evil = try Self.insertRegion(db, definition: good.replacingOccurrences(
                of: "\(server.baseURL)/styles/bright.json", with: evilStyle), description: #"{"name":"evil"}"#)
            try Self.resource(db, evil, url: evilStyle, kind: 1, data: Self.evilStyle)
            try Self.resource(db, evil, url: "http://127.0.0.1:1/evil/sprite.json", kind: 4, data: #"{"../../x": 1, "a/b": {"width": "w"}}"#)
            try Self.resource(db, evil, url: "http://127.0.0.1:1/evil/sprite.png", kind: 5, data: "not a png")
            try Self.resource(db, evil, url: "http://127.0.0.1:1/evil/fonts/..%2F..%2Fetc/0-255.pbf", kind: 3, data: "")
            try Self.resource(db, evil, url: "http://127.0.0.1:1/evil/tiles.json", kind: 2,
                              data: #"{"tiles": ["http://127.0.0.1:1/evil/{z}/{x}/{y}.pbf"], "minzoom": -4, "maxzoom": 1e400}"#)
            let template = "http://127.0.0.1:1/evil/{z}/{x}/{y}.pbf"
            for (z, x, y) in [(2, -1, 0), (2, 1, Int64.max), (2, 1, -5), (40, 0, 0), (-3, 0, 0), (2, 3, Int64.min)] as [(Int64, Int64, Int64)] {
                try Self.tile(db, evil, template: template, z: z, x: x, y: y, data: Data("t".utf8), compressed: 0)
            }
            // Contents that do not decode: NULL compressed, garbage compressed, a text, a number.
            try Self.tile(db, evil, template: template, z: 1, x: 0, y: 0, data: nil, compressed: 1)
            try Self.tile(db, evil, template: template, z: 1, x: 0, y: 1, data: Data([0x78, 0x9C, 1, 2, 3]), compressed: 1)
            try Self.tile(db, evil, template: template, z: 1, x: 1, y: 0, data: "text, not a blob", compressed: "yes")
            try Self.tile(db, evil, template: template, z: 1, x: 1, y: 1, data: 42, compressed: 0)
            try db.execute(sql: "UPDATE tiles SET pixel_ratio = 'two', x = 'one' WHERE z = 1 AND x = 1 AND y = 1")

            let brokenStyle = "http://127.0.0.1:1/broken/style.json"
            let broken = try Self.insertRegion(db, definition: good.replacingOccurrences(
                of: "\(server.baseURL)/styles/bright.json", with: brokenStyle), description: #"{"name":"broken"}"#)
            try Self.resource(db, broken, url: brokenStyle, kind: 1, data: Self.brokenStyle)
            let garbled = try Self.insertRegion(db, definition: "{not json", description: Data([0xFF, 0xFE, 0x00, 0x80]))
            try Self.resource(db, garbled, url: "http://127.0.0.1:1/garbled.json", kind: 1, data: "[[[[")
            _ = try Self.insertRegion(db, definition: #"{"style_url": 7, "bounds": ["a"], "min_zoom": -1e400}"#,
                                description: #"{"name": "../../../etc"}"#)
            _ = try Self.insertRegion(db, definition: good, description: #"{"name": "a/b\u0000c"}"#)
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS packfs_pack_state (region_id INTEGER NOT NULL PRIMARY KEY, state TEXT NOT NULL,
                  error TEXT, required_resources INTEGER NOT NULL DEFAULT 0, required_tiles INTEGER NOT NULL DEFAULT 0,
                  required_is_precise INTEGER NOT NULL DEFAULT 0, updated INTEGER NOT NULL)
                """)
            try db.execute(
                sql: "INSERT OR REPLACE INTO packfs_pack_state VALUES (?, 'bogus', NULL, 'many', -1, 'x', 0)",
                arguments: [evil])
        }
        try queue.close()
    }

    /// A style MapLibre accepts whose names try to leave their directories; its source "v" names
    /// the hostile tiles.
    private static let evilStyle = """
        {"version": 8, "sprite": [{"id": "..", "url": "http://127.0.0.1:1/evil/sprite"}],
         "glyphs": "http://127.0.0.1:1/evil/fonts/{fontstack}/{range}.pbf",
         "sources": {
           "v": {"type": "vector", "tiles": ["http://127.0.0.1:1/evil/{z}/{x}/{y}.pbf"], "maxzoom": 24},
           "../../x": {"type": "vector", "url": "http://127.0.0.1:1/evil/tiles.json"},
           "": {"type": "geojson", "data": "http://127.0.0.1:1/evil/data.geojson"}
         },
         "layers": [{"id": "x", "type": "symbol", "source": "v", "source-layer": "l",
                     "layout": {"text-font": ["..", "/", "\\u0000"]}}]}
        """

    /// A style MapLibre refuses: the pack shows no sources, and says nothing it cannot.
    private static let brokenStyle = """
        {"version": 8, "sources": {
           "a/b": {"type": "vector", "tiles": ["http://127.0.0.1:1/evil/{z}/{x}/{y}.pbf"], "maxzoom": 255},
           "nan": {"type": "raster", "tiles": "not an array", "tileSize": -1},
           "p": {"type": "geojson", "data": {"type": "Point", "coordinates": [1e400, 0]}}},
         "layers": []}
        """

    private static func insertRegion(_ db: Database, definition: String, description: some DatabaseValueConvertible) throws -> Int64 {
        try db.execute(sql: "INSERT INTO regions (definition, description) VALUES (?, ?)", arguments: [definition, description])
        return db.lastInsertedRowID
    }

    private static func resource(_ db: Database, _ region: Int64, url: String, kind: Int, data: String) throws {
        try db.execute(
            sql: "INSERT INTO resources (url, kind, data, compressed, accessed) VALUES (?, ?, ?, 0, 0)",
            arguments: [url, kind, Data(data.utf8)])
        try db.execute(sql: "INSERT INTO region_resources VALUES (?, ?)", arguments: [region, db.lastInsertedRowID])
    }

    private static func tile(
        _ db: Database, _ region: Int64, template: String, z: Int64, x: Int64, y: Int64,
        data: (any DatabaseValueConvertible)?, compressed: any DatabaseValueConvertible
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO tiles (url_template, pixel_ratio, z, x, y, data, compressed, accessed)
                VALUES (?, 1, ?, ?, ?, ?, ?, 0)
                """,
            arguments: [template, z, x, y, data, compressed])
        try db.execute(sql: "INSERT INTO region_tiles VALUES (?, ?)", arguments: [region, db.lastInsertedRowID])
    }

    /// Every stored row, hashed: what the mount must leave as it found it.
    private func rowDigest() throws -> [String: Int] {
        // The daemon's last act (journal mode back to DELETE) may still hold the lock: wait for it.
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let queue = try DatabaseQueue(path: db, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            var digest: [String: Int] = [:]
            for table in ["regions", "resources", "tiles", "region_resources", "region_tiles"] {
                var hasher = Hasher()
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid") {
                    for value in row.databaseValues { hasher.combine(value) }
                }
                digest[table] = hasher.finalize()
            }
            return digest
        }
    }
}
