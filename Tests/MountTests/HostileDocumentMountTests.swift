import Foundation
import PackStore
import TestSupport
import XCTest

/// The corpus's bad styles, TileJSON documents, sprite and glyph bodies served by nginx to a
/// real `packfs` daemon: each pack that fetches one ends in `error` naming the field and the
/// document's URL (or completes, for what must be accepted), while the daemon keeps serving and
/// the pack made before them stays byte for byte.
final class HostileDocumentMountTests: HostileMountTestCase {
    /// A pack to make, the case it serves, and the URL its error must name.
    struct Expectation {
        var pack: String
        var item: HostileCase
        var style: String
        var url: String
    }

    func testBadDocumentsEndTheirPackInErrorNamingTheFieldAndTheURL() throws {
        let root = try hostileWorld()
        server = try TestServer.nginx(world: root)
        // Bodies that fail to decode are retried (the bytes may have been damaged on the way):
        // nginx serves the same bytes each time, so only the backoff is shortened.
        try mountPackFS(["--retry-delay", "0.01"])
        let good = try goodPack("good")
        let expectations = try plannedPacks()
        XCTAssertGreaterThanOrEqual(expectations.count, 110)
        for expected in expectations {
            XCTAssertEqual(writeFile(packs + "/\(expected.pack).region", region(style: expected.style)), 0, "\(expected.item)")
        }
        for expected in expectations { try check(expected) }
        assertServing()
        assertUnchanged("good", good)
    }

    private func check(_ expected: Expectation) throws {
        let item = expected.item
        let state = waitForState(expected.pack, ["complete", "error"], timeout: 180)
        let error = progress(expected.pack)?["error"]?.string ?? ""
        // What HTTP takes but the content check refuses (a sprite that is HTML) ends the pack too.
        guard let expect = item.expect ?? item.strings("content_error") else {
            XCTAssertEqual(state, "complete", "\(item): \(error)")
            if let path = item.string("tree") {
                XCTAssertTrue(FileManager.default.fileExists(atPath: packs + "/\(expected.pack)/" + path), "\(item): no \(path)")
            }
            try checkStoredAsServed(expected)
            return
        }
        XCTAssertEqual(state, "error", "\(item)")
        assertMentions(error, expect + [expected.url], item)
    }

    /// A sprite or glyph body served plainly is in the pack as served.
    private func checkStoredAsServed(_ expected: Expectation) throws {
        let item = expected.item
        guard item.string("encoding") == "identity" else { return }
        let file = item.kind == "sprite" ? "sprites/default" + Self.suffix(item) : "glyphs/Noto Sans Regular/0-255.pbf"
        let served = try server.expectedContent(String(expected.url.dropFirst(server.baseURL.count)))
        XCTAssertEqual(FileManager.default.contents(atPath: packs + "/\(expected.pack)/" + file), served, "\(item)")
    }

    private func plannedPacks() throws -> [Expectation] {
        let base = server.baseURL + "/hostile/"
        var planned = try HostileCorpus.cases("style").map {
            Expectation(pack: "s-" + $0.stem, item: $0, style: base + $0.file, url: base + $0.file)
        }
        planned += try HostileCorpus.cases("tilejson").map {
            Expectation(pack: "t-" + $0.stem, item: $0, style: base + "tilejson-styles/\($0.stem).json", url: base + $0.file)
        }
        planned += try HostileCorpus.cases("sprite").map {
            Expectation(pack: "sp-" + $0.stem, item: $0, style: base + "sprite-styles/\($0.stem).json",
                        url: base + "sprites/\($0.stem)/sheet" + Self.suffix($0))
        }
        planned += try HostileCorpus.cases("glyph").map {
            Expectation(pack: "g-" + $0.stem, item: $0, style: base + "glyph-styles/\($0.stem).json",
                        url: base + "glyphs/\($0.stem)/0-255.pbf")
        }
        return planned
    }

    static func suffix(_ item: HostileCase) -> String {
        ["json": ".json", "png": ".png", "json@2x": "@2x.json", "png@2x": "@2x.png"][item.string("role") ?? ""] ?? ""
    }

    /// The fixture world, with the corpus's styles and TileJSON documents under hostile/, and a
    /// style naming each TileJSON document, sprite sheet and glyph range of the corpus.
    private func hostileWorld() throws -> URL {
        let root = temp.url.appendingPathComponent("world")
        let hostile = root.appendingPathComponent("hostile")
        try FileManager.default.copyItem(at: ProjectPaths.world, to: root)
        try FileManager.default.createDirectory(at: hostile, withIntermediateDirectories: true)
        for kind in ["styles", "tilejson"] {
            try FileManager.default.copyItem(at: HostileCorpus.root.appendingPathComponent(kind), to: hostile.appendingPathComponent(kind))
        }
        for item in try HostileCorpus.cases("tilejson") {
            try write(style(["\"url\": \"{base}/hostile/\(item.file)\""]), to: hostile, "tilejson-styles/\(item.stem).json")
        }
        for item in try HostileCorpus.cases("sprite") {
            let sheet = "sprites/\(item.stem)/sheet"
            for suffix in [".json", ".png", "@2x.json", "@2x.png"] {
                try write(try Data(contentsOf: root.appendingPathComponent("sprites/bright" + suffix)), to: hostile, sheet + suffix)
            }
            let gzip = item.string("encoding") == "gzip"
            try write(try item.data(), to: hostile, sheet + Self.suffix(item) + (gzip ? ".gz" : ""))
            try write(style([], sprite: "{base}/hostile/" + sheet), to: hostile, "sprite-styles/\(item.stem).json")
        }
        for item in try HostileCorpus.cases("glyph") {
            let range = "glyphs/\(item.stem)/0-255.pbf"
            let real = try Data(contentsOf: root.appendingPathComponent("fonts/Noto Sans Regular/0-255.pbf"))
            let gzip = item.string("encoding") == "gzip"
            try write(gzip ? real : try item.data(), to: hostile, range)
            if gzip { try write(try item.data(), to: hostile, range + ".gz") }
            try write(style([], glyphs: "{base}/hostile/glyphs/\(item.stem)/{range}.pbf"), to: hostile, "glyph-styles/\(item.stem).json")
        }
        return root
    }

    /// A style with the land tiles inline (or, given `source`, an `openmaptiles` source with
    /// those members), and a sprite or glyphs template with a symbol layer that asks for glyphs.
    private func style(_ source: [String], sprite: String? = nil, glyphs: String? = nil) -> Data {
        let tiled = source.isEmpty
            ? "\"land\": {\"type\": \"vector\", \"tiles\": [\"{base}/tiles/land/{z}/{x}/{y}.pbf\"], \"maxzoom\": 4}"
            : "\"openmaptiles\": {\"type\": \"vector\", " + source.joined(separator: ", ") + "}"
        var members = ["\"version\": 8", "\"sources\": {\(tiled)}"]
        if let sprite { members.append("\"sprite\": \"\(sprite)\"") }
        if let glyphs { members.append("\"glyphs\": \"\(glyphs)\"") }
        members.append("""
            "layers": [{"id": "labels", "type": "symbol", "source": "\(source.isEmpty ? "land" : "openmaptiles")",
              "source-layer": "land", "layout": {"text-field": "x", "text-font": ["Noto Sans Regular"]}}]
            """)
        return Data(("{" + members.joined(separator: ", ") + "}\n").utf8)
    }

    private func write(_ data: Data, to directory: URL, _ path: String) throws {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}
