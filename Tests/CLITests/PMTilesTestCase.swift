import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// What the PMTiles command tests share: the Helsinki pack downloaded from nginx, a pack's
/// tiles read straight from the database, and the reference Python package (`pmtiles`) run as
/// a process to read and write archives independently of PackFS.
class PMTilesTestCase: CLITestCase {
    static let scripts = ProjectPaths.root.appendingPathComponent("Tests/interchange")

    /// Downloads the Helsinki pack of `style` (styles/bright.json: three tiled sources) into
    /// `db`; returns the server's base URL.
    @discardableResult
    func downloadHelsinki(name: String = "helsinki", style: String = "bright.json", pixelRatio: Int = 1) throws -> String {
        let nginx = try TestServer.nginx()
        server = nginx
        let region = temp.path("region.json")
        try """
            {"style": "\(nginx.baseURL)/styles/\(style)", "bounds": [24.93, 60.16, 24.96, 60.18],
             "minzoom": 0, "maxzoom": 14, "pixel_ratio": \(pixelRatio)}
            """.write(toFile: region, atomically: true, encoding: .utf8)
        let outcome = try packfs("download", db, name, region)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return nginx.baseURL
    }

    /// The tiles of `pack` under `template` ("z/x/y" in the stored rows: every source here is
    /// XYZ), as a renderer reads them: stored framing removed, gzip inflated.
    func packTiles(_ pack: String, template: String, database path: String? = nil) throws -> [String: Data] {
        let database = try OfflineDatabase.open(path: path ?? db, mode: .readOnly)
        defer { try? database.close() }
        let id = try database.pack(named: pack).id
        let set = try XCTUnwrap(try database.packTileSets(of: id).first { $0.urlTemplate == template }, template)
        var tiles: [String: Data] = [:]
        try database.forEachPackTile(set) { z, x, y, data in tiles["\(z)/\(x)/\(y)"] = try Self.content(data.decoded()) }
        return tiles
    }

    /// Bytes as a renderer reads them: gzip inflated.
    static func content(_ data: Data?) throws -> Data {
        guard let data else { return Data() }
        return data.starts(with: [0x1F, 0x8B]) ? try Zlib.decompress(data) : data
    }

    /// An archive as the reference Python reader sees it (Tests/interchange/pmtiles_read.py).
    struct Archive {
        var header: JSONValue
        var metadata: JSONValue
        var rootLeaves: Int
        /// "z/x/y": bytes as the archive holds them.
        var tiles: [String: Data]
        var lookups: Int
        var lookupsAgree: Bool

        func field(_ name: String) -> Int { header[name]?.number.map { Int($0) } ?? -1 }
    }

    func readWithPython(_ path: String) throws -> Archive {
        try Self.requirePMTilesPackage()
        let outcome = try run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.scripts.appendingPathComponent("pmtiles_read.py").path, path])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let json = try XCTUnwrap(JSONValue.parse(Data(outcome.stdout.utf8)), outcome.stderr)
        var tiles: [String: Data] = [:]
        for (key, value) in json["tiles"]?.object ?? [:] { tiles[key] = value.string.flatMap { Data(base64Encoded: $0) } }
        return Archive(
            header: json["header"] ?? .null, metadata: json["metadata"] ?? .null,
            rootLeaves: Int(json["root_leaves"]?.number ?? -1), tiles: tiles,
            lookups: Int(json["lookups"]?.number ?? 0), lookupsAgree: json["lookups_agree"] == .bool(true))
    }

    /// Writes an archive with the reference Python writer (Tests/interchange/pmtiles_write.py):
    /// every tile of zooms 0 to `maxZoom`; returns the tiles it wrote, as written.
    func writeWithPython(_ path: String, maxZoom: Int, leafEntries: Int? = nil) throws -> [String: Data] {
        try Self.requirePMTilesPackage()
        let outcome = try run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Self.scripts.appendingPathComponent("pmtiles_write.py").path, path, "\(maxZoom)"]
                + (leafEntries.map { ["\($0)"] } ?? []))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let json = try XCTUnwrap(JSONValue.parse(Data(outcome.stdout.utf8)), outcome.stderr)
        return (json.object ?? [:]).compactMapValues { $0.string.flatMap { Data(base64Encoded: $0) } }
    }

    /// Checks the layout the spec asks for against the file: the header first, the root within
    /// the first 16 KiB, the sections back to back (root, metadata, leaves, tile data) to the
    /// file's end, gzip internal compression, clustered, and the counts and zooms of `tiles`.
    func checkLayout(_ archive: Archive, path file: String, line: UInt = #line) throws {
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        let h = archive.field
        XCTAssertEqual(h("version"), 3, line: line)
        XCTAssertEqual(h("root_offset"), 127, line: line)
        XCTAssertLessThanOrEqual(h("root_offset") + h("root_length"), 16_384, line: line)
        XCTAssertEqual(h("metadata_offset"), h("root_offset") + h("root_length"), line: line)
        XCTAssertEqual(h("leaf_directory_offset"), h("metadata_offset") + h("metadata_length"), line: line)
        XCTAssertEqual(h("tile_data_offset"), h("leaf_directory_offset") + h("leaf_directory_length"), line: line)
        XCTAssertEqual(h("tile_data_offset") + h("tile_data_length"), size, line: line)
        XCTAssertEqual(archive.header["clustered"], .bool(true), line: line)
        XCTAssertEqual(h("internal_compression"), 2, "gzip", line: line)
        XCTAssertEqual(h("addressed_tiles_count"), archive.tiles.count, line: line)
        XCTAssertLessThanOrEqual(h("tile_entries_count"), h("addressed_tiles_count"), line: line)
        XCTAssertLessThanOrEqual(h("tile_contents_count"), h("tile_entries_count"), line: line)
        let zooms = archive.tiles.keys.compactMap { $0.split(separator: "/").first.flatMap { Int($0) } }
        XCTAssertEqual(h("min_zoom"), zooms.min(), line: line)
        XCTAssertEqual(h("max_zoom"), zooms.max(), line: line)
        XCTAssertGreaterThan(archive.lookups, 0, line: line)
        XCTAssertTrue(archive.lookupsAgree, "Reader.get found other bytes than the walk", line: line)
    }

    /// Skips when python3 cannot import `pmtiles` (fails in CI, where setup installed it).
    static func requirePMTilesPackage(file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try Command.run("/usr/bin/env", ["python3", "-c", "import pmtiles.reader, pmtiles.writer"])
        guard probe.status != 0 else { return }
        let message = "the pmtiles Python package is not importable by python3 (pip install pmtiles)"
        if isCI { XCTFail(message, file: file, line: line) }
        throw XCTSkip(message)
    }
}
