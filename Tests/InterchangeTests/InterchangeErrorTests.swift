import Interchange
import XCTest

final class InterchangeErrorTests: XCTestCase {
    /// Each cause's one line names its file, tile or pack, with or without the optional parts.
    func testEachCauseSaysWhereInOneLine() {
        let cases: [(InterchangeError, String)] = [
            (.damaged("x.pmtiles", detail: "the root directory does not inflate"), "x.pmtiles: the root directory does not inflate"),
            (.cannotRead("x.mbtiles", reason: nil), "cannot read x.mbtiles"),
            (.cannotWrite("out/a.png", action: "create", reason: "No space left on device"),
             "cannot create out/a.png: No space left on device"),
            (.tileOutsideGrid(file: nil, tile: "1/2/0", grid: "zoom 1's grid"), "tile 1/2/0 lies outside zoom 1's grid"),
            (.tileOutsideGrid(file: "r.mbtiles", tile: "2/1/4 (TMS row)", grid: "the tile grid"),
             "r.mbtiles: tile 2/1/4 (TMS row) lies outside the tile grid"),
            (.noSuchSource(pack: "p", source: "s", known: []), #"pack "p" has no tiled source "s" (its tiled sources: none)"#),
            (.destinationTaken("out", entries: nil), "out exists and is not a directory"),
            (.patchGiven("d.mbtiles"),
             "d.mbtiles is a patch (its metadata has agg_tiles_hash_before_apply or _after_apply), not a tile set"),
            (.formatsDiffer(old: "a.mbtiles", oldFormat: "pbf", new: "b.mbtiles", newFormat: "png"),
             "a.mbtiles holds pbf tiles and b.mbtiles png tiles: a diff is between two versions of one tile set"),
            (.severalSources(pack: "p", known: ["a", "b"]), #"pack "p" has several tiled sources ("a", "b"): name one with --source"#),
            (.tileLimit(file: "s.db", adding: 2, stored: 1, limit: 2, mapbox: true),
             "s.db: merging would add 2 mapbox:// tiles to the 1 the database holds; the Mapbox tile limit is 2; nothing was merged"),
        ]
        for (error, line) in cases {
            XCTAssertEqual(String(describing: error), line)
        }
    }
}
