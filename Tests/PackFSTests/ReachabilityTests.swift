import Basics
import Downloader
import Foundation
import SQLiteDB
@testable import PackFS
import PackStore
import StyleModel
import TestSupport
import XCTest

/// The downloader and the mount read a style through one model (StyleModel), so they cannot
/// disagree: for every fixture style, at pixel ratios 1 and 2, and for a pack made the way Mapbox
/// apps make one, every tile and resource a real download stores is reachable in the tree with
/// its stored bytes at the path its key names, and the tree shows nothing else but the files it
/// generates (progress.json, coverage.geojson, the tiles.json of an inline source).
final class ReachabilityTests: PackFSTestCase {
    /// The test world (Fixtures/world and a mapbox/ tree) and the nginx serving it.
    static let fixture = ClassFixture<TestServer>()

    override class var sharesServer: Bool { true }

    override class func setUp() {
        super.setUp()
        fixture.setUp {
            let world = try classDirectory().url.appendingPathComponent("world")
            try MapboxWorld.make(at: world)
            return try TestServer.nginx(world: world)
        }
    }

    override class func tearDown() {
        fixture.tearDown { $0.stop() }
        super.tearDown()
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try Self.fixture.value()
    }

    func testEveryFixtureStyleAtEachPixelRatio() throws {
        let styles = try FileManager.default.contentsOfDirectory(
            atPath: ProjectPaths.world.appendingPathComponent("styles").path
        ).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertTrue(styles.contains("variety.json"), "\(styles)")
        for style in styles {
            for ratio in [1.0, 2.0] {
                let reached = try checkReachability(style: server.url("/styles/" + style), pixelRatio: ratio)
                XCTAssertGreaterThan(reached.tiles, 0, style)
            }
        }
    }

    /// `mapbox://` style, sources, sprite and glyphs, fetched through `--rewrite mapbox://=...`:
    /// tiles keyed under the canonical `mapbox://tiles/...` template are in the tree.
    func testAMapboxStylePack() throws {
        var options = DownloadOptions()
        options.urlPolicy = URLPolicy(rewrites: [URLRewrite(from: "mapbox://", to: server.url("/mapbox/"))])
        let reached = try checkReachability(style: MapboxWorld.styleURL, pixelRatio: 2, options: options)
        XCTAssertEqual(reached.tiles, 19)
    }

    // MARK: - The check

    /// Downloads a pack of central Helsinki at zooms 0-14, walks its tree and compares it with the
    /// pack's rows; returns how many tiles and resources the tree reached.
    @discardableResult
    func checkReachability(style: String, pixelRatio: Double, options: DownloadOptions = DownloadOptions())
        throws -> (tiles: Int, resources: Int)
    {
        let label = "\(style) @\(pixelRatio)x"
        let database = try OfflineDatabase.open(path: temp.path("\(UUID().uuidString).db"), mode: .mount)
        defer { try? database.close() }
        let definition = RegionDefinition(
            styleURL: style, area: .bounds(Bounds(west: 24.93, south: 60.16, east: 24.96, north: 60.18)),
            minZoom: 0, maxZoom: 14, pixelRatio: pixelRatio)
        let pack = try database.createPack(name: "p", definition: definition)
        let status = PackDownload(database: database, region: pack.id, definition: definition, options: options).run()
        XCTAssertEqual(status.state, .complete, "\(label): \(status.error ?? "")")
        let files = try TreeWalker(fs: PackFilesystem(database: database, mountpoint: "/mnt")).files(under: "packs/p")
        var tiles = Set<Int64>()
        var resources = Set<Int64>()
        for (path, file) in files {
            switch try reached(path, file, in: database, pack.id, label) {
            case .tile(let id): tiles.insert(id)
            case .resource(let id): resources.insert(id)
            case .generated: break
            }
        }
        let members = try Members(database, pack.id)
        XCTAssertEqual(tiles, members.tilesWithContent, "\(label): tiles stored and tiles in the tree")
        XCTAssertEqual(resources, members.resources, "\(label): resources stored and files in the tree")
        return (tiles.count, resources.count)
    }

    enum Reached {
        case tile(Int64)
        case resource(Int64)
        case generated
    }

    /// What the file at `path` shows: a tile row (its bytes checked against the origin), a
    /// resource row (its bytes checked against the store), or a generated file.
    private func reached(_ path: String, _ file: TreeWalker.File, in database: OfflineDatabase, _ region: RegionID,
                         _ label: String) throws -> Reached {
        let place = "\(label): \(path)"
        switch InodeCodec.decode(file.inode) {
        case .tile(_, let id, _)?:
            try checkTile(path, file.content, id: id, database, region, place)
            return .tile(id.rawValue)
        case .resource(_, let id, _)?:
            XCTAssertEqual(file.content, try database.packResourceData(id, in: region)?.decoded(), place)
            return .resource(id.rawValue)
        case .pack(_, .style)?:
            try checkStyleIsLocal(file.content, place)
            return .resource(try resourceID(url: try XCTUnwrap(database.pack(id: region).definition).styleURL, database))
        case .source(_, _, .tileJSON)?:
            guard let url = try declaredURL(of: path, database, region) else { return .generated }
            // The stored bytes, secrets shown as *** (Mapbox's TileJSON carries the token).
            let stored = try XCTUnwrap(try database.resource(url: url)?.data.decoded(), place)
            XCTAssertEqual(file.content, Data(Redaction.text(String(decoding: stored, as: UTF8.self)).utf8), place)
            return .resource(try resourceID(url: url, database))
        case .source(_, _, .data)?:
            let url = try XCTUnwrap(try declaredURL(of: path, database, region), place)
            XCTAssertEqual(file.content, try server.expectedContent(String(url.dropFirst(server.baseURL.count))), place)
            return .resource(try resourceID(url: url, database))
        case .pack(_, .progress)?:
            return .generated
        case .pack(_, .coverage)?:
            let coverage = try CoverageDocument(file.content)
            XCTAssertNil(coverage.counting, place)
            XCTAssertFalse(coverage.features.isEmpty, place)
            return .generated
        default:
            XCTFail("\(place): a file that names no row of the pack")
            return .generated
        }
    }

    /// A tile's path names its stored key (XYZ rows: a TMS source's are flipped), and its bytes
    /// are the origin's at the key's URL.
    private func checkTile(_ path: String, _ content: Data, id: TileID, _ database: OfflineDatabase, _ region: RegionID,
                           _ place: String) throws {
        let key = try XCTUnwrap(try database.packTile(id, in: region)?.key, place)
        let parts = path.split(separator: "/")
        let (z, x, y) = (Int(parts[parts.count - 3]), Int(parts[parts.count - 2]), Int(parts.last!.split(separator: ".")[0]))
        let tms = try isTMS(path, database, region)
        XCTAssertEqual([z, x, y], [key.z, key.x, tms ? (1 << key.z) - 1 - key.y : key.y], place)
        var origin = try server.expectedContent(originPath(TileURLTemplate.url(for: key)))
        if origin.starts(with: [0x1F, 0x8B]) { origin = try Zlib.decompress(origin) }
        XCTAssertEqual(content, origin, place)
    }

    /// Every URL of the mount's style.json points into the mount.
    private func checkStyleIsLocal(_ content: Data, _ place: String) throws {
        let style = try XCTUnwrap(JSONValue.parse(content), place)
        var urls = [style["glyphs"]?.string].compactMap { $0 }
        urls += [style["sprite"]?.string].compactMap { $0 } + (style["sprite"]?.array ?? []).compactMap { $0["url"]?.string }
        for (_, source) in style["sources"]?.object ?? [:] {
            urls += (source["tiles"]?.array ?? []).compactMap(\.string)
            urls += [source["url"]?.string, source["data"]?.string].compactMap { $0 }
        }
        XCTAssertFalse(urls.isEmpty, place)
        for url in urls { XCTAssertTrue(url.hasPrefix("file:///mnt/packs/p/"), "\(place): \(url)") }
    }

    /// The path on the test server a stored URL is fetched from (`mapbox://` through the rewrite);
    /// for a tile of the fixture's archive (`bright-pmtiles.json`), the same tile's file.
    private func originPath(_ url: String) -> String {
        let archive = "pmtiles://" + server.baseURL + "/tiles/helsinki.pmtiles/"
        if url.hasPrefix(archive) { return "/tiles/helsinki/" + url.dropFirst(archive.count) + ".pbf" }
        return url.hasPrefix("mapbox://") ? "/mapbox/" + url.dropFirst("mapbox://".count) : String(url.dropFirst(server.baseURL.count))
    }

    /// The raw style's source for `sources/<dir>/...` or the primary view: the URL it declares.
    private func declaredURL(of path: String, _ database: OfflineDatabase, _ region: RegionID) throws -> String? {
        let source = try rawSource(of: path, database, region)
        return (source?["url"] ?? source?["data"]) as? String
    }

    private func isTMS(_ path: String, _ database: OfflineDatabase, _ region: RegionID) throws -> Bool {
        try rawSource(of: path, database, region)?["scheme"] as? String == "tms"
    }

    /// The stored style's source object a path is under, read with JSONSerialization (not the model
    /// under test): `sources/<escaped id>/`, or the first vector source for the primary view.
    private func rawSource(of path: String, _ database: OfflineDatabase, _ region: RegionID) throws -> [String: Any]? {
        let styleURL = try XCTUnwrap(database.pack(id: region).definition).styleURL
        let data = try XCTUnwrap(try database.resource(url: styleURL)?.data.decoded())
        let sources = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])["sources"] as? [String: Any]
        let parts = path.split(separator: "/").map(String.init)
        if parts.count > 3, parts[2] == "sources" {
            return sources?.first { FileName.escape($0.key) == parts[3] }?.value as? [String: Any]
        }
        let order = OrderedSourceIDs.of(data)
        return order.compactMap { sources?[$0] as? [String: Any] }.first { $0["type"] as? String == "vector" }
    }

    private func resourceID(url: String, _ database: OfflineDatabase) throws -> Int64 {
        try XCTUnwrap(try database.resource(url: url)?.id.rawValue, url)
    }
}

/// The pack's rows, read with plain SQL.
private struct Members {
    var tilesWithContent: Set<Int64>
    var resources: Set<Int64>

    init(_ database: OfflineDatabase, _ region: RegionID) throws {
        (tilesWithContent, resources) = try database.read { db in
            (Set(try Int64.fetchAll(db, sql: """
                SELECT t.id FROM region_tiles rt JOIN tiles t ON t.id = rt.tile_id
                WHERE rt.region_id = ? AND t.data IS NOT NULL
                """, arguments: [region.rawValue])),
             Set(try Int64.fetchAll(db, sql: "SELECT resource_id FROM region_resources WHERE region_id = ?",
                                    arguments: [region.rawValue])))
        }
    }
}

/// The ids of a style's `sources` in document order, by a regular expression over the text (the
/// fixture styles write one source per line or object; good enough to name the first vector one).
private enum OrderedSourceIDs {
    static func of(_ data: Data) -> [String] {
        let text = String(decoding: data, as: UTF8.self)
        guard let start = text.range(of: "\"sources\"") else { return [] }
        let pattern = try? NSRegularExpression(pattern: #""([^"]+)"\s*:\s*\{\s*"type""#)
        let range = NSRange(start.upperBound..<text.endIndex, in: text)
        return (pattern?.matches(in: text, range: range) ?? []).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
