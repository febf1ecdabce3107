import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport
import XCTest

/// Base of the merge tests: a PackFS database (`target`) holding the pack "trip" already, and an
/// app's offline database (`sidePath`) written by the `sqlite3` shell with MapLibre's schema:
///
/// | side region | description | tiles (template T unless said) | resources |
/// | --- | --- | --- | --- |
/// | 1 | `{"name":"trip",...}` (taken in the target) | 1/0/0 (shared with 2), 1/1/0, 1/1/1 (older than the target's) | style (shared) |
/// | 2 | `{"name":"city"}` | 1/0/0, 1/0/1, 0/0/0 (newer than the target's) | style |
/// | 3 | opaque bytes `00 FF 7B 6E 61 6D 65` | T2 0/0/0 | a glyph range |
/// | none (ambient) | | 2/0/0 | a TileJSON |
class MergeTestCase: PackFSTestCase {
    override class var databaseMode: OfflineDatabase.Mode? { .command }
    static let template = "http://127.0.0.1:1/tiles/{z}/{x}/{y}.pbf"
    static let appTemplate = "http://127.0.0.1:1/app/{z}/{x}/{y}.png"
    static let style = "http://127.0.0.1:1/styles/side.json"
    static let appBytes = Data([0x00, 0xFF, 0x7B, 0x6E, 0x61, 0x6D, 0x65])

    var target: OfflineDatabase { database }
    var targetPath: String { databasePath }
    var sidePath: String { temp.path("cache.db") }

    func key(_ z: Int, _ x: Int, _ y: Int, _ template: String = template) -> TileKey {
        TileKey(urlTemplate: template, pixelRatio: 1, z: z, x: x, y: y)
    }

    /// The target's own pack "trip" (another definition than the side's "trip"): 0/0/0 modified
    /// at 200, 1/1/1 modified at 300, and the style the side holds too, modified at 100.
    @discardableResult
    func makeTarget() throws -> Pack {
        let definition = RegionDefinition(
            styleURL: Self.style, area: .bounds(Bounds(west: 20, south: 50, east: 30, north: 60)), minZoom: 0, maxZoom: 1)
        let trip = try target.createPack(name: "trip", definition: definition)
        try target.write { batch in
            for (tile, modified, text) in [(key(0, 0, 0), 200, "older 0/0/0"), (key(1, 1, 1), 300, "newer 1/1/1")] {
                let id = try batch.putTile(
                    tile, data: .encoding(Data(text.utf8)), headers: CacheHeaders(modified: Int64(modified)))
                try batch.link(tile: id, to: trip.id)
            }
            let style = try batch.putResource(
                url: Self.style, kind: .style, data: .encoding(Data("{\"version\":8}".utf8)),
                headers: CacheHeaders(modified: 100))
            try batch.link(resource: style, to: trip.id)
        }
        return trip
    }

    /// The side file of the table above, in MapLibre's schema of `version` (5 lacks
    /// `must_revalidate`).
    func makeSide(version: Int = 6, at path: String? = nil) throws {
        let t = Self.template, a = Self.appTemplate
        try MapLibreSideFile.create(path ?? sidePath, version: version, rows: """
            INSERT INTO regions (id, definition, description) VALUES
              (1, '\(MapLibreSideFile.definition(style: Self.style))', CAST('{"name":"trip","metadata":{"by":"app"}}' AS BLOB)),
              (2, '\(MapLibreSideFile.definition(style: Self.style, maxZoom: 3))', CAST('{"name":"city"}' AS BLOB)),
              (3, '\(MapLibreSideFile.definition(style: "asset://app.json"))', X'00FF7B6E616D65');
            INSERT INTO tiles (id, url_template, pixel_ratio, z, x, y, modified, etag, data, compressed, accessed) VALUES
              (1, '\(t)', 1, 1, 0, 0, 100, 'e1', sqlar_compress(zeroblob(2000)), 1, 1000),
              (2, '\(t)', 1, 1, 1, 0, 100, NULL, CAST('tile 1/1/0' AS BLOB), 0, 1000),
              (3, '\(t)', 1, 1, 0, 1, 100, NULL, CAST('tile 1/0/1' AS BLOB), 0, 1000),
              (4, '\(t)', 1, 0, 0, 0, 500, 'e4', CAST('newer 0/0/0' AS BLOB), 0, 1000),
              (5, '\(t)', 1, 1, 1, 1, 50, NULL, CAST('older 1/1/1' AS BLOB), 0, 1000),
              (6, '\(t)', 1, 2, 0, 0, NULL, NULL, CAST('ambient 2/0/0' AS BLOB), 0, 900),
              (7, '\(a)', 1, 0, 0, 0, NULL, NULL, CAST('app tile' AS BLOB), 0, 1000);
            INSERT INTO resources (id, url, kind, modified, data, compressed, accessed) VALUES
              (1, '\(Self.style)', 1, 100, CAST('{"version":8,"side":true}' AS BLOB), 0, 1000),
              (2, 'http://127.0.0.1:1/fonts/Noto%20Sans/0-255.pbf', 4, NULL, CAST('glyphs' AS BLOB), 0, 1000),
              (3, 'http://127.0.0.1:1/ambient.json', 2, NULL, CAST('{}' AS BLOB), 0, 900);
            INSERT INTO region_tiles (region_id, tile_id) VALUES (1, 1), (2, 1), (1, 2), (2, 3), (2, 4), (1, 5), (3, 7);
            INSERT INTO region_resources (region_id, resource_id) VALUES (1, 1), (2, 1), (3, 2);
            """)
    }

    /// Every row of the offline tables and PackFS's pack states, in order: equal dumps are equal
    /// databases.
    func dump(_ database: OfflineDatabase? = nil) throws -> [String] {
        try (database ?? target).read { db in
            var lines: [String] = []
            for table in ["regions", "tiles", "resources", "region_tiles", "region_resources", "packfs_pack_state"]
            where try db.tableExists(table) {
                lines += try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map { "\(table) \($0)" }
            }
            return lines
        }
    }

    /// (tiles, resources) a pack holds.
    func members(_ name: String) throws -> (tiles: Int, resources: Int) {
        let counts = try target.progress(of: try target.pack(named: name).id).counts
        return (counts.tiles, counts.resources)
    }

    func fileBytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
}
