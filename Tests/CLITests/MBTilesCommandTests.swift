import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs export ... OUT.mbtiles` and `packfs import ... FILE.mbtiles` as a user runs them, on the
/// Helsinki pack downloaded from nginx, checked by readers PackFS did not write: the sqlite3 shell
/// for the metadata and pymbtiles (Tests/interchange/mbtiles_check.py) for every tile.
final class MBTilesCommandTests: CLITestCase {
    static let check = ProjectPaths.root.appendingPathComponent("Tests/interchange/mbtiles_check.py").path


    /// Each tiled source of bright.json (the vector sources openmaptiles and land, the raster
    /// relief) to its own file, read back tile by tile against the database.
    func testTheHelsinkiPackExportsAndReadsBackWithOtherReaders() throws {
        let base = try downloadHelsinki()
        let started = Date()
        let export = try packfs("export", db, "helsinki", temp.path("helsinki.mbtiles"))
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(export.status, 0, export.stderr)
        let sources = [
            ("openmaptiles", "tiles/helsinki/{z}/{x}/{y}.pbf", 19, "pbf"), ("land", "tiles/land/{z}/{x}/{y}.pbf", 5, "pbf"),
            ("relief", "tiles/geography-class-png/{z}/{x}/{y}.png", 1, "png"),
        ]
        for (source, path, count, format) in sources {
            let file = temp.path("helsinki.\(source).mbtiles")
            XCTAssertTrue(export.stdout.contains("\(file): source \(source), \(count) tiles"), export.stdout)
            let shell = try sqlite3(file, "PRAGMA application_id", "PRAGMA integrity_check", "SELECT COUNT(*) FROM tiles")
            XCTAssertEqual(shell, ["1297105496", "ok", "\(count)"], source)
            let metadata = try self.metadata(file)
            XCTAssertEqual(metadata["format"], format, source)
            XCTAssertNotNil(metadata["name"], source)
            let bounds = try XCTUnwrap(metadata["bounds"]).split(separator: ",").compactMap { Double($0) }
            XCTAssertEqual(bounds.count, 4, source)
            let checked = try Command.run("/usr/bin/env", ["python3", Self.check, file, db, "helsinki", "\(base)/\(path)"])
            XCTAssertEqual(checked.status, 0, checked.text)
            XCTAssertTrue(checked.text.contains("OK: \(count) tiles byte-exact"), checked.text)
        }
        let main = try metadata(temp.path("helsinki.openmaptiles.mbtiles"))
        let expected = [
            "name": "Helsinki (OpenMapTiles schema)", "minzoom": "0", "maxzoom": "14", "type": "baselayer",
            "attribution": "© OpenStreetMap contributors", "bounds": "24.9351766,60.1641551,24.9534132,60.1791074",
        ]
        XCTAssertEqual(main.filter { expected[$0.key] != nil }, expected)
        let layers = JSONValue.parse(Data(try XCTUnwrap(main["json"]).utf8))?["vector_layers"]?.array
        XCTAssertEqual(layers?.count, 16)
        XCTAssertEqual(layers?.first?["id"], .string("place"))
        let sizes = sources.map { (source, _, _, _) in
            "\(source) \(fileSize(temp.path("helsinki.\(source).mbtiles"))) B"
        }
        print("MBTilesCommandTests: export of helsinki took \(String(format: "%.3f", seconds)) s: \(sizes.joined(separator: ", "))")
    }

    func testSourceChoosesOneFileAndMistakesSayWhatIsThere() throws {
        _ = try downloadHelsinki()
        let out = temp.path("land.mbtiles")
        let land = try packfs("export", db, "helsinki", out, "--source", "land")
        XCTAssertEqual(land.status, 0, land.stderr)
        XCTAssertEqual(land.stdout, "\(out): source land, 5 tiles, zooms 0-4\n")
        XCTAssertEqual(try metadata(out)["type"], "overlay")
        let unknown = try packfs("export", db, "helsinki", temp.path("x.mbtiles"), "--source", "roads")
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(
            unknown.stderr,
            #"packfs: pack "helsinki" has no tiled source "roads" (its tiled sources: "openmaptiles", "land", "relief")"# + "\n")
        XCTAssertEqual(try packfs("export", db, "nobody", temp.path("y.mbtiles")).status, 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.contains("mbtiles") }
        XCTAssertEqual(left, ["land.mbtiles"])
        let json = try packfs("export", db, "helsinki", temp.path("again.mbtiles"), "--source", "land", "--json")
        let file = JSONValue.parse(Data(json.stdout.utf8))?["files"]?.array?.first
        XCTAssertEqual(file?["path"], .string(temp.path("again.mbtiles")), json.stdout)
        XCTAssertEqual(file?["tiles"], .number(5), json.stdout)
        XCTAssertEqual(file?["max_zoom"], .number(4), json.stdout)
    }

    /// The exported file imported into another database is a pack holding exactly its tiles
    /// (gzipped tiles are stored as they are); the pack cannot be refreshed, its name is taken.
    func testTheExportedFileImportsAsAPack() throws {
        _ = try downloadHelsinki()
        let file = temp.path("helsinki.mbtiles")
        XCTAssertEqual(try packfs("export", db, "helsinki", file, "--source", "openmaptiles").status, 0)
        let other = temp.path("other.db")
        let started = Date()
        let imported = try packfs("import", other, file, "--name", "from file")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "pack \"from file\": 19 tiles, zooms 0 to 14\n")
        let checked = try Command.run(
            "/usr/bin/env", ["python3", Self.check, file, other, "from file", "mbtiles://from%20file/{z}/{x}/{y}"])
        XCTAssertEqual(checked.status, 0, checked.text)
        XCTAssertTrue(checked.text.contains("OK: 19 tiles byte-exact"), checked.text)
        let refresh = try packfs("refresh", other, "from file")
        XCTAssertEqual(refresh.status, 1)
        XCTAssertTrue(refresh.stderr.contains("imported from a file"), refresh.stderr)
        let again = try packfs("import", other, file, "--name", "from file")
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("already exists"), again.stderr)
        let json = JSONValue.parse(Data(try packfs("import", other, file, "--name", "twice", "--json").stdout.utf8))
        XCTAssertEqual(json, .object(["pack": .string("twice"), "tiles": .number(19), "min_zoom": .number(0), "max_zoom": .number(14)]))
        print("MBTilesCommandTests: import of \(fileSize(file)) B took \(String(format: "%.3f", seconds)) s; database \(fileSize(other)) B")
    }

    /// Files that are not MBTiles are refused in one line, and the database is not touched.
    func testWhatIsNotMBTilesIsRefused() throws {
        try packfs("reset", db)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let text = temp.path("text.mbtiles")
        try "hello".write(toFile: text, atomically: true, encoding: .utf8)
        let offline = temp.path("offline.mbtiles")
        XCTAssertEqual(try packfs("reset", offline).status, 0)
        for (file, words) in [(text, "neither an SQLite file"), (offline, "is not an MBTiles file: it has no `metadata` table")] {
            let outcome = try packfs("import", db, file)
            XCTAssertEqual(outcome.status, 1, file)
            XCTAssertTrue(outcome.stderr.hasPrefix("packfs: ") && outcome.stderr.contains(words), outcome.stderr)
            XCTAssertEqual(outcome.stderr.filter { $0 == "\n" }.count, 1, outcome.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before)
        // The file is judged before any database is opened: none is created for it.
        XCTAssertEqual(try packfs("import", temp.path("absent.db"), offline).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("absent.db")))
    }

    // MARK: - Helpers

    /// The Helsinki pack of bright.json (zooms 0-14) downloaded from nginx; returns the base URL.
    private func downloadHelsinki() throws -> String {
        let nginx = try TestServer.nginx()
        server = nginx
        let region = temp.path("region.json")
        try """
            {"style": "\(nginx.baseURL)/styles/bright.json", "bounds": [24.93, 60.16, 24.96, 60.18],
             "minzoom": 0, "maxzoom": 14}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        let download = try packfs("download", db, "helsinki", region)
        XCTAssertEqual(download.status, 0, download.stderr)
        return nginx.baseURL
    }

    /// The sqlite3 shell's answer, a line per statement's row.
    private func sqlite3(_ file: String, _ statements: String...) throws -> [String] {
        let outcome = try run(URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-readonly", file] + statements)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    /// The metadata table as the sqlite3 shell shows it (JSON output: values may hold newlines).
    private func metadata(_ file: String) throws -> [String: String] {
        let outcome = try run(URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-readonly", "-json", file, "SELECT name, value FROM metadata"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        var values: [String: String] = [:]
        for row in JSONValue.parse(Data(outcome.stdout.utf8))?.array ?? [] {
            if let name = row["name"]?.string, let value = row["value"]?.string { values[name] = value }
        }
        return values
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}
