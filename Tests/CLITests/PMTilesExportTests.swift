import Basics
import Foundation
import PackStore
import TestSupport
import XCTest

/// `packfs export DB NAME OUT.pmtiles`, read back by the reference Python reader.
final class PMTilesExportTests: PMTilesTestCase {
    /// Three tiled sources, three archives; each holds exactly the pack's tiles with content
    /// (vector tiles gzipped, images as they are), laid out as the spec says, with the
    /// TileJSON's metadata and the region's extent.
    func testTheHelsinkiPackReadsBackTileByTileWithTheReferenceReader() throws {
        let base = try downloadHelsinki()
        let outcome = try packfs("export", db, "helsinki", temp.path("helsinki.pmtiles"))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        print("PMTilesExportTests: the Helsinki pack:\n" + outcome.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("helsinki.pmtiles")), "three sources, three files")
        let hidden = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(hidden, [], "scratch and partial files are gone")
        let sources: [(id: String, template: String, type: Int, compression: Int)] = [
            ("openmaptiles", "\(base)/tiles/helsinki/{z}/{x}/{y}.pbf", 1, 2),
            ("land", "\(base)/tiles/land/{z}/{x}/{y}.pbf", 1, 2),
            ("relief", "\(base)/tiles/geography-class-png/{z}/{x}/{y}.png", 2, 1),
        ]
        var archives: [String: Archive] = [:]
        for source in sources {
            let path = temp.path("helsinki.\(source.id).pmtiles")
            let archive = try readWithPython(path)
            archives[source.id] = archive
            try checkLayout(archive, path: path)
            XCTAssertEqual(archive.field("tile_type"), source.type, source.id)
            XCTAssertEqual(archive.field("tile_compression"), source.compression, source.id)
            let stored = try packTiles("helsinki", template: source.template)
            let expected = stored.filter { !$0.value.isEmpty }
            let read = try archive.tiles.mapValues { source.compression == 2 ? try Zlib.inflate($0, windowBits: 31) : $0 }
            XCTAssertEqual(read.count, expected.count, source.id)
            XCTAssertTrue(read == expected, "\(source.id): the archive's tiles differ from the pack's")
            XCTAssertTrue(outcome.stdout.contains("\(path): source \"\(source.id)\", \(expected.count) tiles"), outcome.stdout)
            let empty = stored.count - expected.count
            XCTAssertEqual(outcome.stdout.contains("\(empty) empty tiles left out"), empty > 0, outcome.stdout)
        }
        try checkMetadata(archives)
    }

    private func checkMetadata(_ archives: [String: Archive]) throws {
        let tileJSON = try XCTUnwrap(JSONValue.parse(Data(contentsOf: ProjectPaths.world.appendingPathComponent("tiles/helsinki.json"))))
        let omt = try XCTUnwrap(archives["openmaptiles"])
        XCTAssertEqual(omt.metadata["vector_layers"], tileJSON["vector_layers"])
        XCTAssertEqual(omt.metadata["name"], tileJSON["name"])
        XCTAssertEqual(omt.metadata["attribution"], tileJSON["attribution"])
        // The region lies around the TileJSON's bounds: the extent is the TileJSON's.
        XCTAssertEqual(["min_lon_e7", "min_lat_e7", "max_lon_e7", "max_lat_e7"].map(omt.field),
                       [249_351_766, 601_641_551, 249_534_132, 601_791_074])
        XCTAssertEqual(omt.field("center_zoom"), 14, "the zoom where the 0.018 degrees of the extent span about one tile")
        let land = try XCTUnwrap(archives["land"])
        XCTAssertEqual(land.metadata["vector_layers"], .array([.object(["id": .string("land"), "fields": .object([:])])]),
                       "an inline source's layers: the ones the style draws")
        XCTAssertEqual(["min_lon_e7", "min_lat_e7", "max_lon_e7", "max_lat_e7"].map(land.field),
                       [249_300_000, 601_600_000, 249_600_000, 601_800_000], "the region's bounds")
        XCTAssertEqual(land.field("center_zoom"), 4, "clamped to the archive's zooms")
        let relief = try XCTUnwrap(archives["relief"])
        XCTAssertNil(relief.metadata["vector_layers"])
        XCTAssertEqual(relief.metadata["name"], .string("helsinki"))
    }

    /// Every kind of tiled source: a TMS source whose id holds a `/` (its file name escapes it;
    /// its rows come out in XYZ), a `{ratio}` raster at pixel ratio 2. Checked against the
    /// fixture's files, not the database: the TMS source's tile at XYZ z/x/y must be the XYZ
    /// fixture's z/x/y.
    func testTMSRowsComeOutInXYZAndSourceIDsAreEscapedInFileNames() throws {
        try downloadHelsinki(style: "variety.json", pixelRatio: 2)
        let outcome = try packfs("export", db, "helsinki", temp.path("v.pmtiles"))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.hasSuffix(".pmtiles") }
        XCTAssertEqual(Set(written), ["v.relief@2x.pmtiles", "v.osm%2Ftms.pmtiles", "v.openmaptiles.pmtiles", "v.same-template.pmtiles"])
        let tiles = ProjectPaths.world.appendingPathComponent("tiles")
        let tms = try readWithPython(temp.path("v.osm%2Ftms.pmtiles"))
        try checkLayout(tms, path: temp.path("v.osm%2Ftms.pmtiles"))
        XCTAssertEqual(tms.field("max_zoom"), 5)
        for (key, data) in tms.tiles {
            let fixture = try Data(contentsOf: tiles.appendingPathComponent("helsinki/\(key).pbf"))
            XCTAssertEqual(try Zlib.inflate(data, windowBits: 31), fixture, key)
        }
        let raster = try readWithPython(temp.path("v.relief@2x.pmtiles"))
        XCTAssertEqual(raster.field("tile_type"), 2)
        XCTAssertEqual(raster.tiles, ["0/0/0": try Data(contentsOf: tiles.appendingPathComponent("geography-class-png/0/0/0@2x.png"))])
    }

    /// A pack of about 22,000 tiles made straight in the database, more entries than a root
    /// directory holds (16,384) even with its runs: leaf directories, and every tile back, byte for
    /// byte. Blocks of a shared "sea" tile become runs. (Exports at scale are measured by the
    /// benchmarks; the pack is no larger than that, as the suite runs it under ThreadSanitizer.)
    func testAPackOfTensOfThousandsOfTilesExportsWithLeafDirectories() throws {
        let expected = try makeGridPack()
        XCTAssertGreaterThanOrEqual(expected.count, 21_000)
        let out = temp.path("grid.pmtiles")
        let start = Date()
        let outcome = try packfs("export", db, "grid", out)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
        print(String(format: "PMTilesExportTests: %d tiles exported in %.2f s, %d bytes: %@", expected.count, seconds, size, outcome.stdout))
        let archive = try readWithPython(out)
        try checkLayout(archive, path: out)
        XCTAssertGreaterThan(archive.field("leaf_directory_length"), 0)
        XCTAssertGreaterThan(archive.rootLeaves, 1)
        XCTAssertGreaterThan(archive.field("tile_entries_count"), 16_384, "more entries than a root holds")
        XCTAssertLessThan(archive.field("tile_entries_count"), expected.count, "runs of the shared tile")
        XCTAssertLessThan(archive.field("tile_contents_count"), archive.field("tile_entries_count"))
        XCTAssertEqual(archive.tiles.count, expected.count)
        var different = 0
        for (key, data) in archive.tiles where try Zlib.inflate(data, windowBits: 31) != expected[key] { different += 1 }
        XCTAssertEqual(different, 0)
    }

    /// Pack "grid": zooms 10 to 17 over 128 x 128 tiles of zoom 17 (21,862 tiles), each a valid
    /// vector tile naming itself, padded to an irregular size; at zoom 17, 16 x 16 blocks of one
    /// shared tile. Returns the tiles' contents by "z/x/y".
    private func makeGridPack() throws -> [String: Data] {
        let database = try OfflineDatabase.open(path: db)
        defer { try? database.close() }
        let template = "https://tiles.example.test/grid/{z}/{x}/{y}.pbf"
        let pack = try database.createPack(
            name: "grid",
            definition: RegionDefinition(
                styleURL: "https://tiles.example.test/grid/style.json",
                area: .bounds(Bounds(west: 23.2, south: 60.1, east: 24.1, north: 60.5)), minZoom: 10, maxZoom: 17))
        var tiles: [String: Data] = [:]
        var random: UInt64 = 0x2545_F491_4F6C_DD1D
        let sea = Self.vectorTile(name: "sea", padding: 0)
        try database.write { batch in
            for z in 10...17 {
                let shift = 17 - z
                for x in (74_000 >> shift)...(74_127 >> shift) {
                    for y in (37_808 >> shift)...(37_935 >> shift) {
                        random ^= random << 13
                        random ^= random >> 7
                        random ^= random << 17
                        let shared = z == 17 && (x / 16 + y / 16) % 7 == 0
                        let data = shared ? sea : Self.vectorTile(name: "\(z)/\(x)/\(y)", padding: Int(random % 400))
                        let key = TileKey(urlTemplate: template, pixelRatio: 1, z: z, x: x, y: y)
                        try batch.link(tile: batch.putTile(key, data: .encoding(data), headers: CacheHeaders()), to: pack.id)
                        tiles["\(z)/\(x)/\(y)"] = data
                    }
                }
            }
        }
        return tiles
    }

    /// A minimal Mapbox Vector Tile: one layer "grid" (version 2, extent 4096) whose one key is
    /// `name` and whose one value is a string of `padding` bytes.
    static func vectorTile(name: String, padding: Int) -> Data {
        func varint(_ value: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            return bytes + [UInt8(rest)]
        }
        func field(_ number: Int, _ bytes: [UInt8]) -> [UInt8] { [UInt8(number << 3 | 2)] + varint(bytes.count) + bytes }
        let value = field(1, Array(repeating: UInt8(ascii: "x"), count: padding))
        let layer = field(1, Array("grid".utf8)) + field(3, Array(name.utf8)) + field(4, value) + [0x28, 0x80, 0x20, 0x78, 0x02]
        return Data(field(3, layer))
    }
}
