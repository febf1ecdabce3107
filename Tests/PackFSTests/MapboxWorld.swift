import Foundation
import TestSupport

/// A copy of Fixtures/world plus what api.mapbox.com would serve for a `mapbox://` style, under
/// `mapbox/` (reached with `--rewrite mapbox://=<server>/mapbox/`): the style, a TileJSON listing
/// https tile URLs with a token (as Mapbox's does), the Helsinki tiles as `.vector.pbf`, the
/// sprite and one font stack.
enum MapboxWorld {
    static let styleURL = "mapbox://styles/test/bright"

    static let style = """
        {"version":8,"name":"Mapbox-style (fixture)",
         "sources":{"composite":{"type":"vector","url":"mapbox://mapbox.test-streets"}},
         "sprite":"mapbox://sprites/test/bright","glyphs":"mapbox://fonts/test/{fontstack}/{range}.pbf",
         "layers":[{"id":"water","type":"fill","source":"composite","source-layer":"water"},
          {"id":"labels","type":"symbol","source":"composite","source-layer":"place",
           "layout":{"text-field":["get","name:latin"],"text-font":["Noto Sans Regular"]}}]}
        """

    static let tileJSON = """
        {"tilejson":"2.2.0","maxzoom":14,"bounds":[24.9351766,60.1641551,24.9534132,60.1791074],
         "tiles":["https://api.mapbox.com/v4/mapbox.test-streets/{z}/{x}/{y}.vector.pbf?access_token=pk.test"]}
        """

    static func make(at root: URL) throws {
        let files = FileManager.default
        try files.copyItem(at: ProjectPaths.world, to: root)
        let mapbox = root.appendingPathComponent("mapbox")
        try write(style, to: mapbox.appendingPathComponent("styles/test/bright"))
        try write(tileJSON, to: mapbox.appendingPathComponent("mapbox.test-streets"))
        let tiles = root.appendingPathComponent("tiles/helsinki")
        for path in try files.subpathsOfDirectory(atPath: tiles.path) where path.hasSuffix(".pbf") {
            let target = mapbox.appendingPathComponent("tiles/mapbox.test-streets/" + path.dropLast(4) + ".vector.pbf")
            try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: tiles.appendingPathComponent(path), to: target)
        }
        try files.createDirectory(at: mapbox.appendingPathComponent("sprites/test"), withIntermediateDirectories: true)
        for name in ["bright.json", "bright.png", "bright@2x.json", "bright@2x.png"] {
            try files.copyItem(
                at: root.appendingPathComponent("sprites/" + name), to: mapbox.appendingPathComponent("sprites/test/" + name))
        }
        try files.createDirectory(at: mapbox.appendingPathComponent("fonts/test"), withIntermediateDirectories: true)
        try files.copyItem(
            at: root.appendingPathComponent("fonts/Noto Sans Regular"),
            to: mapbox.appendingPathComponent("fonts/test/Noto Sans Regular"))
    }

    private static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}
