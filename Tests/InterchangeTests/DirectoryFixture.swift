import Basics
import Foundation
import PackStore
import TestSupport

/// A small pack with every kind of file a directory export writes, stored by hand: a vector
/// source through a stored TileJSON with TMS rows and gzipped tiles, an inline raster source, a
/// GeoJSON source whose id holds a `/`, an image source, a sprite array whose id holds a `/`, and
/// two glyph ranges. `files` is every file the export must hold with its exact bytes (the JSON
/// documents, which the export writes anew, are checked apart).
struct DirectoryFixture {
    static let styleURL = "https://maps.example/styles/small.json"
    static let style = """
        {"version":8,"name":"small","center":[24.94,60.17],"zoom":14,
         "sources":{
          "vec":{"type":"vector","url":"https://maps.example/vec.json"},
          "ras":{"type":"raster","tiles":["https://maps.example/ras/{z}/{x}/{y}.png"],"tileSize":256,"maxzoom":1},
          "line/s":{"type":"geojson","data":"https://maps.example/trails.geojson"},
          "img":{"type":"image","url":"https://maps.example/overlay.png","coordinates":[[0,1],[1,1],[1,0],[0,0]]}},
         "sprite":[{"id":"icons/poi","url":"https://maps.example/sprites/bright"}],
         "glyphs":"https://maps.example/fonts/{fontstack}/{range}.pbf",
         "layers":[{"id":"water","type":"fill","source":"vec","source-layer":"water"},
          {"id":"label","type":"symbol","source":"vec","source-layer":"place",
           "layout":{"text-field":"x","text-font":["Noto Sans Regular"]}}]}
        """
    static let tileJSON = """
        {"tilejson":"3.0.0","name":"vec","tiles":["https://maps.example/vec/{z}/{x}/{y}.pbf"],"scheme":"tms",
         "minzoom":0,"maxzoom":2,"attribution":"test","vector_layers":[{"id":"water","fields":{}}]}
        """
    static let world = ProjectPaths.world

    let pack: Pack
    /// Relative path -> bytes, for every file but style.json and the tiles.json files.
    let files: [String: Data]

    static func make(in database: OfflineDatabase) throws -> DirectoryFixture {
        let definition = RegionDefinition(
            styleURL: styleURL, area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)), minZoom: 0, maxZoom: 2)
        let pack = try database.createPack(name: "small", definition: definition)
        let vector0 = try Data(contentsOf: world.appendingPathComponent("tiles/land/0/0/0.pbf"))
        let vector1 = try Data(contentsOf: world.appendingPathComponent("tiles/land/1/0/0.pbf"))
        let raster = try Data(contentsOf: world.appendingPathComponent("tiles/geography-class-png/0/0/0.png"))
        let resources: [(String, ResourceKind, Data)] = [
            (styleURL, .style, Data(style.utf8)),
            ("https://maps.example/vec.json", .source, Data(tileJSON.utf8)),
            ("https://maps.example/trails.geojson", .source, try Data(contentsOf: world.appendingPathComponent("data/trails.geojson"))),
            ("https://maps.example/overlay.png", .image, try Data(contentsOf: world.appendingPathComponent("images/overlay.png"))),
        ] + (try sprites() + glyphs())
        var files: [String: Data] = [
            "sources/vec/0/0/0.pbf": vector0, "sources/vec/1/0/1.pbf": vector1, "sources/ras/0/0/0.png": raster,
            "sources/line%2Fs/data.geojson": resources[2].2, "sources/img/image.png": resources[3].2,
        ]
        for (url, _, data) in resources.dropFirst(4) { files[path(of: url)] = data }
        try database.write { batch in
            for (url, kind, data) in resources {
                let id = try batch.putResource(url: url, kind: kind, data: .encoding(data), headers: CacheHeaders())
                try batch.link(resource: id, to: pack.id)
            }
            let vec = "https://maps.example/vec/{z}/{x}/{y}.pbf"
            let tiles: [(TileKey, StoredData)] = [
                (TileKey(urlTemplate: vec, pixelRatio: 1, z: 0, x: 0, y: 0), .encoding(vector0)),
                // TMS row 0 of zoom 1 is XYZ row 1; the bytes gzipped as some servers send them.
                (TileKey(urlTemplate: vec, pixelRatio: 1, z: 1, x: 0, y: 0), .encoding(try gzip(vector1))),
                (TileKey(urlTemplate: vec, pixelRatio: 1, z: 1, x: 1, y: 1), .noContent),
                (TileKey(urlTemplate: vec, pixelRatio: 1, z: 1, x: 5, y: 0), .encoding(vector0)),  // outside the grid
                (TileKey(urlTemplate: "https://maps.example/ras/{z}/{x}/{y}.png", pixelRatio: 1, z: 0, x: 0, y: 0), .encoding(raster)),
            ]
            for (key, data) in tiles {
                try batch.link(tile: batch.putTile(key, data: data, headers: CacheHeaders()), to: pack.id)
            }
        }
        return DirectoryFixture(pack: pack, files: files)
    }

    /// The sheet's four files; a glyph range of the stack, twice.
    private static func sprites() throws -> [(String, ResourceKind, Data)] {
        try ["bright.json", "bright.png", "bright@2x.json", "bright@2x.png"].map { name in
            ("https://maps.example/sprites/" + name, name.hasSuffix(".json") ? .spriteJSON : .spriteImage,
             try Data(contentsOf: world.appendingPathComponent("sprites/" + name)))
        }
    }

    private static func glyphs() throws -> [(String, ResourceKind, Data)] {
        try ["0-255.pbf", "256-511.pbf"].map { range in
            ("https://maps.example/fonts/Noto%20Sans%20Regular/" + range, .glyphs,
             try Data(contentsOf: world.appendingPathComponent("fonts/Noto Sans Regular/" + range)))
        }
    }

    /// Where a sprite or glyph URL of the fixture lands in the export.
    private static func path(of url: String) -> String {
        if url.contains("/sprites/") { return "sprites/icons%2Fpoi" + url.dropFirst("https://maps.example/sprites/bright".count) }
        return "glyphs/Noto Sans Regular/" + (url.split(separator: "/").last ?? "")
    }

    /// gzip (RFC 1952) of `data`: zlib's deflate stream between a gzip header and trailer.
    static func gzip(_ data: Data) throws -> Data {
        let zlib = try Zlib.compress(data)
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        out += zlib.dropFirst(2).dropLast(4)
        for value in [crc32(data), UInt32(truncatingIfNeeded: data.count)] {
            out += withUnsafeBytes(of: value.littleEndian) { Data($0) }
        }
        return out
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
