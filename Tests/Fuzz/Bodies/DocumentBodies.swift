import Basics
import Downloader
import Foundation
import PackStore
import StyleModel

/// The bodies over JSON documents: region files, styles, TileJSON and GeoJSON geometries.
extension FuzzBodies {
    /// A region file: parsed; one that parses must read back from both of its encodings (the
    /// region file PackFS shows, MapLibre's stored definition) to the same value, and its area
    /// must cover at low zooms.
    static func regionFile(_ data: Data) throws {
        guard let file = try? RegionFile.parse(data) else { return }
        let shown = try RegionFile.parse(Data(file.encoded().utf8))
        try check(shown == file, "encoded() reads back as \(shown), not \(file)")
        let stored = try RegionDefinition(mapLibreJSON: file.definition.mapLibreJSON)
        try check(stored == file.definition, "mapLibreJSON reads back as \(stored), not \(file.definition)")
        try cover(file.definition.area, zooms: 0...4)
    }

    /// A style: read, each inline tiled source keyed, and a plan made (its resources listed)
    /// with a fixed TileJSON for every source that names one.
    static func style(_ data: Data) throws {
        guard let style = try? Style(data: data, url: styleURL) else { return }
        var tiles: [TileSource?] = []
        for source in style.sources {
            _ = (source.directoryName, source.dataFileName, source.resource)
            let tiled = source.tileType == nil ? nil : try? source.tileSource(tileJSON: fixtureTileJSON)
            if let tiled { try key(tiled, z: min(tiled.maxZoom, 3)) }
            tiles.append(tiled)
        }
        if let primary = Style.primary(of: tiles) {
            try check(style.sources.indices.contains(primary), "primary \(primary) is no source")
        }
        let definition = RegionDefinition(styleURL: styleURL, area: .bounds(helsinki), minZoom: 0, maxZoom: 8)
        _ = try? Estimate.make(for: definition) { url, kind in kind == .style ? data : fixtureTileJSON }
    }

    /// A TileJSON document for source `t` of a fixed style: planned for an unbounded region
    /// (every zoom the document allows), and its first tiles keyed.
    static func tileJSON(_ data: Data) throws {
        let unbounded = RegionDefinition(styleURL: styleURL, area: .bounds(helsinki), minZoom: 0, maxZoom: nil)
        _ = try? Estimate.make(for: unbounded) { url, kind in kind == .style ? fixtureStyle : data }
        guard let declared = try Style(data: fixtureStyle, url: styleURL).sources.first,
            let source = try? declared.tileSource(tileJSON: data)
        else { return }
        try check((0...24).contains(source.minZoom) && (0...24).contains(source.maxZoom),
                  "zooms \(source.minZoom)-\(source.maxZoom) outside 0-24 reached a TileSource")
        guard let zooms = source.coveringZooms(minZoom: 0, maxZoom: nil) else { return }
        try key(source, z: zooms.lowerBound)
        try key(source, z: zooms.upperBound)
    }

    /// A GeoJSON geometry as a region file's `geometry`: parsed, then covered at z0-6 (the count
    /// must equal the tiles listed, each inside the world).
    static func geoJSON(_ data: Data) throws {
        let text = Data("{\"style\": \"\(styleURL)\", \"maxzoom\": 6, \"geometry\": ".utf8) + data + Data("}".utf8)
        guard let file = try? RegionFile.parse(text) else { return }
        try check(try RegionFile.parse(Data(file.encoded().utf8)) == file, "the geometry does not read back")
        try cover(file.definition.area, zooms: 0...6)
    }

    /// The cover of `area` at `zooms`: counted, listed (at most 4096 tiles a zoom), compared.
    static func cover(_ area: RegionDefinition.Area, zooms: ClosedRange<Int>) throws {
        for z in zooms {
            let cover = TileCover(area, zoom: z)
            var listed = 0
            for tile in cover.prefix(4096) {
                try check((0..<(1 << z)).contains(tile.x) && (0..<(1 << z)).contains(tile.y), "tile \(tile) at z\(z)")
                listed += 1
            }
            let count = cover.count
            try check(count == listed || (listed == 4096 && count > 4096), "z\(z): count \(count), listed \(listed)")
        }
    }

    /// Keys and URLs of a few tiles of `source` at `z` (every template token is substituted).
    static func key(_ source: TileSource, z: Int) throws {
        for tile in TileCover(.bounds(helsinki), zoom: z, within: source.bounds).prefix(4) {
            let (key, url) = source.tile(z: z, x: tile.x, y: tile.y, pixelRatio: 2)
            try check(key.z == z && !url.isEmpty, "tile \(tile) keyed \(key) at \(url)")
        }
    }

    static let helsinki = Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)

    static let fixtureTileJSON = Data("""
        {"tilejson": "3.0.0", "tiles": ["http://127.0.0.1:9/tiles/{z}/{x}/{y}.pbf?k={quadkey}&b={bbox-epsg-3857}"],
         "minzoom": 0, "maxzoom": 14, "bounds": [24.9, 60.1, 25.0, 60.2]}
        """.utf8)

    static let fixtureStyle = Data("""
        {"version": 8, "sources": {"t": {"type": "vector", "url": "\(tileJSONURL)"}}, "layers": []}
        """.utf8)
}
