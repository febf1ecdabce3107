import Basics
import CCurl
import Foundation
@testable import HTTP
import PackStore
import StyleModel
import TestSupport
import XCTest

@testable import Downloader

/// The hostile-input corpus (Fixtures/hostile) at the downloader's planning: every bad style,
/// TileJSON and geometry fails naming its field and its document's URL, every hostile one that
/// must be accepted plans and covers within bounds, and every sprite and glyph body is stored as
/// served or fails naming its URL.
final class HostileDocumentTests: XCTestCase {
    let base = "http://127.0.0.1:8181"
    let helsinki = Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)

    /// A plan of `style` (at `styleURL`) for the Helsinki bounds up to `maxZoom`; TileJSONs come
    /// from `tileJSON`, else from the fixture world.
    func plan(_ style: Data, at styleURL: String, maxZoom: Double?, tileJSON: [String: Data] = [:]) throws -> Estimate {
        let definition = RegionDefinition(styleURL: styleURL, area: .bounds(helsinki), minZoom: 0, maxZoom: maxZoom)
        return try Estimate.make(for: definition) { url, kind in
            if kind == .style { return style }
            if let document = tileJSON[url] { return document }
            guard url.hasPrefix(self.base + "/") else { throw HTTPError.status(404, url: url) }
            let file = ProjectPaths.world.appendingPathComponent(String(url.dropFirst(self.base.count + 1)))
            let text = try String(contentsOf: file, encoding: .utf8)
            return Data(text.replacingOccurrences(of: "{base}", with: self.base).utf8)
        }
    }

    /// Runs `attempt`; a case with `expect` must fail mentioning it and `url`, one without must not.
    func judge(_ item: HostileCase, url: String?, _ attempt: () throws -> Void) {
        do {
            try attempt()
            if item.expect != nil { XCTFail("\(item): accepted") }
        } catch {
            guard let expect = item.expect else { return XCTFail("\(item): refused: \(error)") }
            assertMentions(String(describing: error), expect + (url.map { [$0] } ?? []), item)
        }
    }

    /// A TileJSON, a GeoJSON or a sprite index named as the style is refused, saying so (it made
    /// a pack `complete` with nothing in it).
    func testADocumentThatIsNoStyleIsRefusedSayingWhatItLooksLike() throws {
        let cases = [("tiles/helsinki.json", "a TileJSON"), ("data/trails.geojson", "GeoJSON"), ("sprites/bright.json", "a sprite index")]
        for (path, kind) in cases {
            let url = base + "/" + path
            let text = try String(contentsOf: ProjectPaths.world.appendingPathComponent(path), encoding: .utf8)
            XCTAssertThrowsError(try plan(Data(text.replacingOccurrences(of: "{base}", with: base).utf8), at: url, maxZoom: 6)) {
                XCTAssertEqual(String(describing: $0), "\(url): not a MapLibre style (no \"version\": 8, \"sources\", \"layers\"); it looks like \(kind)")
            }
        }
        XCTAssertThrowsError(try plan(Data(#"{"version":8,"sources":{}}"#.utf8), at: base + "/s.json", maxZoom: 6)) {
            XCTAssertEqual(String(describing: $0), "\(base)/s.json: not a MapLibre style (no \"layers\")")
        }
    }

    func testEveryBadStyleFailsNamingTheFieldAndTheStyle() throws {
        let cases = try HostileCorpus.cases("style")
        XCTAssertGreaterThanOrEqual(cases.count, 60)
        for item in cases {
            let url = base + "/hostile/" + item.file
            judge(item, url: url) {
                let estimate = try plan(try item.data(base: base), at: url, maxZoom: 6)
                for source in estimate.sources { XCTAssertTrue(source.zooms.map { 0...24 ~= $0.upperBound } ?? true) }
            }
        }
    }

    func testEveryBadTileJSONFailsNamingTheFieldAndTheDocument() throws {
        let cases = try HostileCorpus.cases("tilejson")
        XCTAssertGreaterThanOrEqual(cases.count, 25)
        for item in cases {
            let url = base + "/hostile/" + item.file
            let source = "\"openmaptiles\": {\"type\": \"vector\", \"url\": \"\(url)\"}"
            let style = Data("{\"version\": 8, \"sources\": {\(source)}, \"layers\": []}".utf8)
            judge(item, url: url) {
                // Unbounded: every zoom the document allows, "maxzoom": 255 included.
                let tileJSON = [url: try item.data(base: base)]
                let estimate = try plan(style, at: base + "/hostile/style.json", maxZoom: nil, tileJSON: tileJSON)
                for source in estimate.sources {
                    XCTAssertTrue(source.zooms.map { 0...24 ~= $0.upperBound } ?? true, "\(item): \(source.zooms!)")
                }
            }
        }
    }

    func testEveryBadGeometryIsRefusedNamingTheFieldAndGoodOnesCover() throws {
        let cases = try HostileCorpus.cases("geojson")
        XCTAssertGreaterThanOrEqual(cases.count, 30)
        for item in cases {
            let head = "{\"style\": \"\(base)/styles/bright.json\", \"minzoom\": 0, \"maxzoom\": 6, \"geometry\": "
            let text = Data(head.utf8) + (try item.data()) + Data("}".utf8)
            judge(item, url: nil) {
                let area = try RegionFile.parse(text).definition.area
                for z in 0...6 {
                    let tiles = TileCover.tiles(covering: area, zoom: z)
                    XCTAssertEqual(tiles.count, TileCover.count(covering: area, zoom: z), "\(item) z\(z)")
                    XCTAssertTrue(tiles.allSatisfy { (0..<(1 << z)).contains($0.x) && (0..<(1 << z)).contains($0.y) })
                    XCTAssertFalse(tiles.isEmpty, "\(item) covers nothing at z\(z)")
                }
            }
        }
    }

    /// What the downloader's HTTP layer does with a sprite or glyph body: anything served plainly
    /// is decoded as served, a gzip body it cannot inflate, or one that inflates past the body
    /// limit, fails naming the URL; then the content check refuses exactly the cases with a
    /// `content_error`, saying what came.
    func testEverySpriteAndGlyphBodyIsKeptAsServedOrFailsNamingTheURL() throws {
        let cases = try HostileCorpus.cases("sprite") + HostileCorpus.cases("glyph")
        XCTAssertGreaterThanOrEqual(cases.count, 15)
        let classifier = AttemptClassifier(decoder: BodyDecoder(), bodyLimit: HTTPClientConfiguration().maxBodyBytes)
        for item in cases {
            let url = base + "/hostile/" + item.file
            var fields = ResponseHeaderFields()
            if item.string("encoding") == "gzip" {
                Array("Content-Encoding: gzip\r\n".utf8).withUnsafeBufferPointer { fields.consume(line: $0) }
            }
            let body = try item.data()
            let result = AttemptResult(code: CURLE_OK, message: "", status: 200, headers: fields, body: body,
                                       bodyTooLarge: false, redirectURL: nil, newConnections: 0)
            switch classifier.decoded(result, url: url, now: 0) {
            case .finish(.success(.ok(let response))):
                XCTAssertNil(item.expect, "\(item): accepted")
                let size = item.fields["stored_size"]?.number.map { Int($0) } ?? body.count
                XCTAssertEqual(response.content.count, size, "\(item)")
                if item.string("encoding") != "gzip" { XCTAssertEqual(response.content, body, "\(item) kept as served") }
                XCTAssertEqual(try response.stored.decoded(), response.content, "\(item) reads back")
                let kind: ContentKind = item.kind == "glyph" ? .glyphs : item.string("role")?.hasPrefix("png") == true ? .spriteImage : .spriteIndex
                let mismatch = ContentCheck.mismatch(response.content, expected: kind)
                if let words = item.strings("content_error") {
                    guard let mismatch else { return XCTFail("\(item): passed the content check") }
                    assertMentions("expected \(kind.expected), got \(mismatch)", words, item)
                } else {
                    XCTAssertNil(mismatch, "\(item)")
                }
            case .finish(.failure(let error)), .retry(let error, _):
                guard let expect = item.expect else { return XCTFail("\(item): refused: \(error)") }
                assertMentions(String(describing: error), expect + [url], item)
            case let other:
                XCTFail("\(item): \(other)")
            }
        }
    }
}
