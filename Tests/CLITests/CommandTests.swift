import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

final class CommandTests: CLITestCase {
    func testEverySubcommandHasHelp() throws {
        for command in ["list", "status", "remove", "cache", "reset"] {
            let outcome = try packfs(command, "--help")
            XCTAssertEqual(outcome.status, 0, command)
            XCTAssertTrue(outcome.stdout.contains("USAGE: packfs \(command)"), command)
        }
    }

    func testResetCreatesAV6Database() throws {
        XCTAssertEqual(try packfs("reset", db).status, 0)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [db, "PRAGMA user_version"]
        let pipe = Pipe()
        sqlite.standardOutput = pipe
        try sqlite.run()
        sqlite.waitUntilExit()
        XCTAssertEqual(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "6\n")
    }

    func testListAndStatusAsTextAndJSON() throws {
        try makeDatabase()
        let list = try packfs("list", db)
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("helsinki"))
        XCTAssertTrue(list.stdout.contains("complete"))
        let json = try packfs("list", db, "--json")
        let packs = try XCTUnwrap(JSONValue.parse(Data(json.stdout.utf8))?.array)
        XCTAssertEqual(packs.map { $0["name"]?.string }, ["helsinki", "other"])
        XCTAssertEqual(packs[0]["completed_tiles"], .number(2))
        XCTAssertEqual(packs[0]["definition"]?["max_zoom"], .number(14))
        XCTAssertEqual(packs[0]["metadata"], .object(["trip": .string("weekend")]))
        let status = try packfs("status", db, "helsinki", "--json")
        XCTAssertEqual(JSONValue.parse(Data(status.stdout.utf8))?["state"], .string("complete"))
        XCTAssertTrue(try packfs("status", db, "helsinki").stdout.contains("tiles:      2 of 2"))
    }

    /// A 248-byte name (and one of wide characters) is cut to its column with an ellipsis: every
    /// row's STATE starts in the same terminal cell; `--json` has the names whole.
    func testListKeepsItsColumnsWithLongAndWideNames() throws {
        try makeDatabase()
        let database = try OfflineDatabase.open(path: db)
        let long = String(repeating: "n", count: 248), wide = String(repeating: "地図", count: 20) + "é"
        let definition = try XCTUnwrap(try database.pack(named: "other").definition)
        for name in [long, wide] { _ = try database.createPack(name: name, definition: definition) }
        try database.close()
        let list = try packfs("list", db)
        XCTAssertEqual(list.status, 0, list.stderr)
        let lines = list.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5, list.stdout)
        for line in lines {
            let state = try XCTUnwrap(line.range(of: #"(STATE|complete|inactive) "#, options: .regularExpression), line)
            // Terminal cells: two for each CJK character, one for the rest here.
            let cells = line[..<state.lowerBound].reduce(0) { $0 + ((0x4E00...0x9FFF).contains($1.unicodeScalars.first?.value ?? 0) ? 2 : 1) }
            XCTAssertEqual(cells, 24, line)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix(String(repeating: "n", count: 22) + "… ") }, list.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix(String(repeating: "地図", count: 5) + "地… ") }, list.stdout)
        let names = try XCTUnwrap(JSONValue.parse(Data(try packfs("list", db, "--json").stdout.utf8))?.array).map { $0["name"]?.string }
        XCTAssertTrue(names.contains(long) && names.contains(wide))
    }

    /// `status --coverage` prints the pack's coverage.geojson: a 3x3 block of z3 tiles without
    /// its centre is one polygon with a hole, in degrees.
    func testStatusPrintsTheCoverage() throws {
        let database = try OfflineDatabase.open(path: db)
        let definition = RegionDefinition(
            styleURL: "https://h.example/styles/gone.json", area: .bounds(Bounds(west: -180, south: -85, east: 180, north: 85)),
            minZoom: 0, maxZoom: 3)
        let pack = try database.createPack(name: "block", definition: definition)
        try database.write { batch in
            for x in 2...4 {
                for y in 2...4 where x != 3 || y != 3 {
                    let key = TileKey(urlTemplate: "https://h.example/{z}/{x}/{y}.pbf", pixelRatio: 1, z: 3, x: x, y: y)
                    try batch.link(tile: batch.putTile(key, data: .encoding(Data("\(x)/\(y)".utf8)), headers: CacheHeaders()), to: pack.id)
                }
            }
        }
        try database.close()
        let outcome = try packfs("status", db, "block", "--coverage")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let coverage = try CoverageDocument(Data(outcome.stdout.utf8))
        XCTAssertEqual(coverage.features.map(\.properties.tiles), [8])
        XCTAssertEqual(coverage.zoom(3)?.geometry.coordinates, [[
            CoverageDocument.ring([(2, 2), (2, 5), (5, 5), (5, 2), (2, 2)], z: 3),
            CoverageDocument.ring([(3, 3), (4, 3), (4, 4), (3, 4), (3, 3)], z: 3),
        ]])
    }

    func testRemoveKeepsSharedTiles() throws {
        try makeDatabase()
        XCTAssertEqual(try packfs("cache", db, "limit", "0").status, 0)
        let outcome = try packfs("remove", db, "helsinki")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let database = try OfflineDatabase.open(path: db, mode: .readOnly)
        XCTAssertEqual(try database.packs().map(\.name), ["other"])
        XCTAssertNotNil(try database.tile(TileKey(urlTemplate: "t", pixelRatio: 1, z: 1, x: 0, y: 0)))
        XCTAssertNil(try database.tile(TileKey(urlTemplate: "t", pixelRatio: 1, z: 1, x: 1, y: 0)))
    }

    func testCacheCommands() throws {
        try makeDatabase()
        try packfs("remove", db, "other")
        let size = try packfs("cache", db, "size", "--json")
        XCTAssertEqual(JSONValue.parse(Data(size.stdout.utf8))?["limit"], .number(52_428_800))
        XCTAssertEqual(try packfs("cache", db, "limit", "1M").status, 0)
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).ambientLimit(), 1_048_576)
        try packfs("remove", db, "helsinki")
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).ambientUsage()?.tiles, 2)
        let invalidated = try packfs("cache", db, "invalidate", "--json")
        XCTAssertEqual(JSONValue.parse(Data(invalidated.stdout.utf8))?["invalidated"], .number(2))
        let cleared = try packfs("cache", db, "clear", "--json")
        XCTAssertEqual(JSONValue.parse(Data(cleared.stdout.utf8))?["removed_tiles"], .number(2))
        XCTAssertEqual(try OfflineDatabase.open(path: db, mode: .readOnly).ambientUsage()?.tiles, 0)
    }

    func testFailuresAreOneLineWithExitStatusOne() throws {
        try makeDatabase()
        let cases: [[String]] = [
            ["status", db, "missing"], ["remove", db, "missing"], ["list", temp.path("absent.db")],
            ["list", "/etc/hostname"],
        ]
        for arguments in cases {
            let outcome = try packfs(arguments)
            XCTAssertEqual(outcome.status, 1, "\(arguments)")
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.hasPrefix("packfs: "), outcome.stderr)
        }
        XCTAssertTrue(try packfs("status", db, "missing").stderr.contains("no pack named \"missing\""))
    }

    func testBadUsageExitsTwo() throws {
        for arguments in [["bogus"], ["list"], ["cache", db, "limit"], ["cache", db, "size", "5"], ["cache", db, "limit", "lots"], ["cache", db, "explode"]] {
            let outcome = try packfs(arguments)
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, "\(arguments): \(outcome.stderr)")
        }
    }

    /// `mount --web-base` takes an http(s) URL without a query: anything else is a usage error
    /// naming the value, before anything is read, created or mounted.
    func testAWebBaseThatIsNoHTTPURLIsAUsageError() throws {
        for base in ["file:///srv/packfs", "maps.example/packfs", "https://", "https://maps.example/p?x=1"] {
            let outcome = try packfs("mount", db, temp.path("mnt"), "--web-base", base)
            XCTAssertEqual(outcome.status, 2, "\(base): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("--web-base \"\(base)\""), outcome.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing created")
        let assets = try packfs("mount", db, temp.path("mnt"), "--web-assets", temp.path("web"))
        XCTAssertEqual(assets.status, 2, assets.stderr)
        XCTAssertTrue(assets.stderr.contains("--web-assets needs --web-base"), assets.stderr)
    }

    /// The retry options of every network command: a value out of range is a usage error that
    /// names the range, before anything is read or created.
    func testRetryOptionsOutOfRangeAreUsageErrors() throws {
        let cases = [("--retries", "0", "1 to 100"), ("--retries", "101", "1 to 100"),
                     ("--retry-delay", "0", "0.001 to 30 seconds"), ("--retry-delay", "31", "0.001 to 30 seconds")]
        for (option, value, range) in cases {
            let outcome = try packfs("download", db, "p", temp.path("region.json"), option, value)
            XCTAssertEqual(outcome.status, 2, "\(option) \(value): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("\(option) must be \(range)"), outcome.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing created")
    }

    func testChangesAreRefusedWhileAnotherProcessHoldsTheDatabase() throws {
        try makeDatabase()
        let session = try OfflineDatabase.open(path: db, mode: .mount)
        defer { try? session.close() }
        for arguments in [["remove", db, "helsinki"], ["cache", db, "clear"], ["reset", db]] {
            let outcome = try packfs(arguments)
            XCTAssertEqual(outcome.status, 1, "\(arguments)")
            XCTAssertTrue(outcome.stderr.contains("in use by another PackFS process"), outcome.stderr)
        }
        XCTAssertEqual(try packfs("list", db).status, 0, "reading is fine while mounted")
        XCTAssertEqual(try session.packs().count, 2)
    }
}
