import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// The outline of a zoom's tiles (`CoverageOutline`) is exactly their union, dissolved, with
/// holes, oriented as RFC 7946 wants; a pack's runs (`Runs`) stay exactly its tiles through
/// additions, removals, an app's SQL, a pack's removal and a background count with changes
/// under way; the document's numbers are the tile edges in degrees; and its reads seek.
final class CoverageTests: StoreTestCase {
    private typealias Point = CoverageOutline.Point
    private let template = "http://h/{z}/{x}/{y}.pbf"

    // MARK: The outline

    /// Cells (x, y) as the outline's input.
    private func columns(_ cells: Set<[Int64]>) -> [CoverageOutline.Column] {
        Dictionary(grouping: cells, by: { $0[0] }).map { x, cells in
            CoverageOutline.Column(x: x, runs: cells.map { $0[1]...$0[1] })
        }
    }

    private func block(_ xs: ClosedRange<Int64>, _ ys: ClosedRange<Int64>) -> Set<[Int64]> {
        Set(xs.flatMap { x in ys.map { [x, $0] } })
    }

    private func ring(_ points: [(Int64, Int64)]) -> [Point] { points.map { Point(x: $0.0, r: $0.1) } }

    func testABlockMissingItsCentreIsOnePolygonWithOneHole() throws {
        var cells = block(0...2, 0...2)
        cells.remove([1, 1])
        let polygons = CoverageOutline.polygons(columns(cells))
        XCTAssertEqual(polygons.count, 1)
        // Counter-clockwise north up: down the west side, east along the south, up, west along the top.
        XCTAssertEqual(polygons.first?.first, ring([(0, 0), (0, 3), (3, 3), (3, 0), (0, 0)]))
        XCTAssertEqual(polygons.first?.dropFirst().first, ring([(1, 1), (2, 1), (2, 2), (1, 2), (1, 1)]), "the hole, clockwise")
        XCTAssertEqual(polygons.first?.count, 2)
        try assertOutline(cells)
    }

    func testSeparateBlocksAreSeparatePolygons() throws {
        let cells = block(0...1, 0...1).union(block(5...6, 2...4))
        let polygons = CoverageOutline.polygons(columns(cells))
        XCTAssertEqual(polygons.count, 2)
        XCTAssertEqual(polygons.map(\.count), [1, 1])
        XCTAssertEqual(polygons.last?.first, ring([(5, 2), (5, 5), (7, 5), (7, 2), (5, 2)]))
        try assertOutline(cells)
    }

    /// Tiles touching at a corner only are two polygons (sharing a corner, no edge); a pocket
    /// open only at a corner is a hole touching the shell there, each ring simple.
    func testCornersAndPockets() throws {
        let diagonal: Set<[Int64]> = [[0, 0], [1, 1]]
        XCTAssertEqual(CoverageOutline.polygons(columns(diagonal)).count, 2)
        try assertOutline(diagonal)
        // The centre's only way out is the corner (2, 2) to the missing corner tile: a hole
        // touching the shell there.
        var pocket = block(0...2, 0...2)
        pocket.subtract([[1, 1], [2, 2]])
        let polygons = CoverageOutline.polygons(columns(pocket))
        XCTAssertEqual(polygons.map(\.count), [2])
        try assertOutline(pocket)
        // Holes touching at a corner inside a block.
        var holes = block(0...4, 0...4)
        holes.subtract([[1, 1], [2, 2], [3, 1]])
        try assertOutline(holes)
    }

    /// Random fields of tiles: every check of `assertOutline`.
    func testRandomFieldsAreOutlinedExactly() throws {
        var state: UInt64 = 7
        for round in 0..<300 {
            let side = Int64(2 + round % 9)
            var cells = Set<[Int64]>()
            for x in 0..<side {
                for y in 0..<side {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    if (state >> 33) % 100 < 40 + UInt64(round % 5) * 10 { cells.insert([x + 3, y]) }
                }
            }
            try assertOutline(cells, "round \(round)")
        }
    }

    /// The outline of `cells`: each ring closed and simple (no corner twice), exteriors
    /// counter-clockwise and holes clockwise, no two corners in a row on one straight line; its
    /// directed unit edges are exactly the cells' boundary (so no polygon shares an edge with
    /// another, and nothing is drawn twice); each cell's centre is inside exactly one polygon
    /// when it is held and none when not; each polygon's tiles are 4-connected.
    private func assertOutline(_ cells: Set<[Int64]>, _ message: String = "") throws {
        let polygons = CoverageOutline.polygons(columns(cells))
        var drawn: [[Int64]: Int] = [:]
        for polygon in polygons {
            for (index, ring) in polygon.enumerated() {
                XCTAssertEqual(ring.first, ring.last, message)
                XCTAssertEqual(Set(ring.dropLast()).count, ring.count - 1, "a corner twice in \(ring) \(message)")
                XCTAssertEqual(CoverageOutline.area(ring) > 0, index == 0, "orientation of \(ring) \(message)")
                let open = Array(ring.dropLast())
                for (i, point) in open.enumerated() {
                    let (a, b) = (open[(i + open.count - 1) % open.count], open[(i + 1) % open.count])
                    XCTAssertFalse((a.x == point.x && point.x == b.x) || (a.r == point.r && point.r == b.r), "straight corner \(point) \(message)")
                }
                for (a, b) in zip(ring, ring.dropFirst()) {
                    let (dx, dr) = ((b.x - a.x).signum(), (b.r - a.r).signum())
                    var p = a
                    while p != b {
                        let q = Point(x: p.x + dx, r: p.r + dr)
                        drawn[[p.x, p.r, q.x, q.r], default: 0] += 1
                        p = q
                    }
                }
            }
        }
        // The boundary, held cell on the left (north up).
        var boundary: [[Int64]: Int] = [:]
        for cell in cells {
            let (x, y) = (cell[0], cell[1])
            if !cells.contains([x, y - 1]) { boundary[[x + 1, y, x, y]] = 1 }
            if !cells.contains([x, y + 1]) { boundary[[x, y + 1, x + 1, y + 1]] = 1 }
            if !cells.contains([x - 1, y]) { boundary[[x, y, x, y + 1]] = 1 }
            if !cells.contains([x + 1, y]) { boundary[[x + 1, y + 1, x + 1, y]] = 1 }
        }
        XCTAssertEqual(drawn, boundary, message)
        let xs = cells.map { $0[0] }, ys = cells.map { $0[1] }
        guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else {
            XCTAssertTrue(polygons.isEmpty)
            return
        }
        var owner: [[Int64]: Int] = [:]
        for x in (minX - 1)...(maxX + 1) {
            for y in (minY - 1)...(maxY + 1) {
                let inside = polygons.indices.filter { index in
                    let rings = polygons[index]
                    return contains(rings[0], x, y) && !rings.dropFirst().contains { contains($0, x, y) }
                }
                XCTAssertEqual(inside.count, cells.contains([x, y]) ? 1 : 0, "cell \(x),\(y) \(message)")
                if let first = inside.first { owner[[x, y]] = first }
            }
        }
        for (cell, polygon) in owner {
            let neighbours = [[cell[0] + 1, cell[1]], [cell[0], cell[1] + 1]]
            for neighbour in neighbours where cells.contains(neighbour) {
                XCTAssertEqual(owner[neighbour], polygon, "neighbours \(cell) \(neighbour) in two polygons \(message)")
            }
        }
    }

    /// Whether cell (x, y)'s centre is inside `ring` (even-odd; centres are never on an edge).
    private func contains(_ ring: [Point], _ x: Int64, _ y: Int64) -> Bool {
        let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
        var inside = false
        for (a, b) in zip(ring, ring.dropFirst()) where a.x == b.x && Double(a.x) > px {
            if (Double(a.r) < py) != (Double(b.r) < py) { inside.toggle() }
        }
        return inside
    }

    // MARK: The runs

    private func tile(_ batch: StoreBatch, _ z: Int, _ x: Int, _ y: Int, content: Bool = true) throws -> TileID {
        let data = content ? StoredData.encoding(noise(16, seed: UInt64(z << 40 | x << 20 | y))) : StoredData(bytes: nil, compressed: false)
        return try batch.putTile(tileKey(z, x, y, template: template), data: data, headers: CacheHeaders())
    }

    /// The pack's runs as kept, and as its memberships say.
    private func assertRuns(_ region: RegionID, _ database: OfflineDatabase, _ message: String = "", line: UInt = #line) throws {
        let (kept, truth) = try database.read { db -> ([String], [String]) in
            let kept = try Row.fetchAll(db, sql: """
                SELECT url_template, pixel_ratio, z, x, min_y, max_y FROM packfs_pack_runs WHERE region_id = ?
                  ORDER BY url_template, pixel_ratio, z, x, min_y
                """, arguments: [region.rawValue]).map { "\($0[0] as String) \($0[1] as Int) \($0[2] as Int)/\($0[3] as Int) \($0[4] as Int)-\($0[5] as Int)" }
            let truth = try Runs.measure(region, db).map { "\($0.column.urlTemplate) \($0.column.pixelRatio) \($0.column.z)/\($0.column.x) \($0.minY)-\($0.maxY)" }
            return (kept, truth)
        }
        XCTAssertEqual(kept, truth, message, line: line)
    }

    func testRunsFollowAdditionsAndRemovalsWhoeverMakesThem() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let pack = try database.createPack(name: "p", definition: sampleDefinition()).id
        let other = try database.createPack(name: "o", definition: sampleDefinition()).id
        var ids: [[Int]: TileID] = [:]
        // Rows added out of order, so that runs grow at both ends, join and start alone.
        try database.write { batch in
            for y in [5, 7, 6, 1, 2, 9, 3, 12, 11, 10, 0] { ids[[3, y]] = try tile(batch, 4, 3, y) }
            for y in [8, 2, 4] { ids[[4, y]] = try tile(batch, 4, 4, y, content: y != 4) }
            for id in ids.values { _ = try batch.link(tile: id, to: pack) }
            _ = try batch.link(tile: try tile(batch, 4, 9, 9), to: other)
        }
        try assertRuns(pack, database, "after additions")
        try assertRuns(other, database)
        // Removals in the middle, at a run's ends, of a run of one.
        for key in [[3, 6], [3, 0], [3, 12], [4, 8], [3, 3]] {
            try database.write { batch in try batch.unlink(tile: try XCTUnwrap(ids[key]), from: pack) }
            try assertRuns(pack, database, "after removing \(key)")
        }
        // An app's plain SQL, adding a row back and taking one away.
        try raw().write { db in
            try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (?, ?)", arguments: [pack.rawValue, ids[[3, 6]]?.rawValue])
            try db.execute(sql: "DELETE FROM region_tiles WHERE region_id = ? AND tile_id = ?", arguments: [pack.rawValue, ids[[3, 10]]?.rawValue])
        }
        try assertRuns(pack, database, "after an app's SQL")
        try database.removePack(pack)
        XCTAssertEqual(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM packfs_pack_runs WHERE region_id = ?", arguments: [pack.rawValue]) }, 0)
        try assertRuns(other, database, "the neighbour's runs stay")
    }

    /// A background count's snapshot, with tiles added and taken away before it finishes: the
    /// runs are the pack's tiles at the end, not at the snapshot.
    func testACountKeepsTheChangesMadeWhileItMeasured() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let pack = try database.createPack(name: "p", definition: sampleDefinition()).id
        var ids: [Int: TileID] = [:]
        try database.write { batch in
            for y in 0..<20 { ids[y] = try tile(batch, 5, 1, y) }
            for y in 0..<10 { _ = try batch.link(tile: try XCTUnwrap(ids[y]), to: pack) }
        }
        try database.write { batch in try Counting.begin(.pack(pack), batch.database) }
        XCTAssertFalse(try database.coverageCounted(pack))
        let measured = try database.read { db in try Counting.combine(Counting.measure([.pack(pack)]).map { try $0(db)[0] }) }
        try database.write { batch in
            for y in [3, 4, 15] { try batch.unlink(tile: try XCTUnwrap(ids[y]), from: pack) }
            for y in [12, 4] { _ = try batch.link(tile: try XCTUnwrap(ids[y]), to: pack) }
        }
        try database.write { batch in try Counting.finish(.pack(pack), measured, batch.database) }
        XCTAssertTrue(try database.coverageCounted(pack))
        try assertRuns(pack, database)
        XCTAssertEqual(try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM packfs_pack_run_drops") }, 0)
    }

    /// A file whose figures were kept before runs were: the first write marks its packs to be
    /// counted again (coverage says "counting" meanwhile), and the mount's count measures them.
    func testAFileWithoutRunsGetsThemFromTheBackgroundCount() throws {
        var pack: RegionID?
        do {
            let database = try OfflineDatabase.open(path: path)
            pack = try database.createPack(name: "p", definition: sampleDefinition()).id
            try database.write { batch in
                for y in 0..<30 where y % 7 != 3 { _ = try batch.link(tile: try tile(batch, 6, 2, y), to: try XCTUnwrap(pack)) }
            }
            try database.close()
        }
        let region = try XCTUnwrap(pack)
        try raw().write { db in
            for table in ["packfs_pack_runs", "packfs_pack_run_counts", "packfs_pack_run_drops"] { try db.execute(sql: "DROP TABLE \(table)") }
            for trigger in ["packfs_runs_region_tiles_insert", "packfs_runs_region_tiles_delete", "packfs_runs_region_insert"] {
                try db.execute(sql: "DROP TRIGGER \(trigger)")
            }
        }
        let session = try OfflineDatabase.open(path: path, mode: .mount)
        defer { try? session.close() }
        try session.write { batch in _ = try batch.link(tile: try tile(batch, 6, 2, 40), to: region) }
        XCTAssertFalse(try session.coverageCounted(region))
        let set = TileColumnSet(region: region, urlTemplate: template, pixelRatio: 1)
        let counting = try CoverageDocument(try session.coverage(of: region, tiles: set) { y, _ in y })
        XCTAssertEqual(counting.counting, true)
        XCTAssertEqual(counting.features, [])
        session.startCounting { XCTFail($0) }
        XCTAssertTrue(eventually(timeout: 60) { (try? session.coverageCounted(region)) == true })
        try assertRuns(region, session)
    }

    // MARK: The document

    /// The 3x3 block without its centre at z 3 and a lone tile, through the store: one feature
    /// per zoom with its tile count, coordinates exactly the tiles' edges in degrees; a TMS
    /// source's rows flipped.
    func testTheDocumentGivesTheTileEdgesInDegrees() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        let pack = try database.createPack(name: "p", definition: sampleDefinition()).id
        try database.write { batch in
            for x in 2...4 { for y in 1...3 where !(x == 3 && y == 2) { _ = try batch.link(tile: try tile(batch, 3, x, y), to: pack) } }
            _ = try batch.link(tile: try tile(batch, 1, 1, 0), to: pack)
        }
        let set = TileColumnSet(region: pack, urlTemplate: template, pixelRatio: 1)
        let document = try CoverageDocument(try database.coverage(of: pack, tiles: set) { y, _ in y })
        XCTAssertEqual(document.type, "FeatureCollection")
        XCTAssertNil(document.counting)
        XCTAssertEqual(document.features.map(\.properties.zoom), [1, 3])
        XCTAssertEqual(document.features.map(\.properties.tiles), [1, 8])
        XCTAssertEqual(document.features.map(\.type), ["Feature", "Feature"])
        XCTAssertEqual(document.zoom(3)?.geometry.type, "MultiPolygon")
        let shell = CoverageDocument.ring([(2, 1), (2, 4), (5, 4), (5, 1), (2, 1)], z: 3)
        let hole = CoverageDocument.ring([(3, 2), (4, 2), (4, 3), (3, 3), (3, 2)], z: 3)
        XCTAssertEqual(document.zoom(3)?.geometry.coordinates, [[shell, hole]])
        XCTAssertEqual(shell[0][0], -90)
        XCTAssertEqual(document.zoom(1)?.geometry.coordinates, [[CoverageDocument.ring([(1, 0), (1, 1), (2, 1), (2, 0), (1, 0)], z: 1)]])
        XCTAssertEqual(document.zoom(1)?.geometry.coordinates.first?.first?.first?[1] ?? 0, 85.0511287798066, accuracy: 1e-12)
        // TMS: stored row y of zoom 3 is XYZ row 7 - y.
        let flipped = try CoverageDocument(try database.coverage(of: pack, tiles: set) { y, z in (1 << z) - 1 - y })
        XCTAssertEqual(flipped.zoom(3)?.geometry.coordinates.first?.first?.first, [CoverageDocument.longitude(2, 3), CoverageDocument.latitude(4, 3)])
        // No tile set: no features.
        XCTAssertEqual(try CoverageDocument(try database.coverage(of: pack, tiles: nil) { y, _ in y }).features, [])
    }

    func testCoverageReadsSeekAndNeverScan() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        _ = try database.createPack(name: "p", definition: sampleDefinition())
        for sql in [OfflineDatabase.CoverageRead.ready.sql, OfflineDatabase.CoverageRead.runs.sql] {
            let plan = try database.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(Array(repeating: 1, count: sql.filter { $0 == "?" }.count)))
                    .map { $0["detail"] as String }
            }
            for step in plan where step.hasPrefix("SCAN") { XCTFail("\(sql)\nscans: \(step)") }
            XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "\(sql): \(plan)")
        }
    }

    /// Each statement of the runs' triggers (with the membership's values as constants) seeks
    /// one run by its whole column key: a download's every new tile costs a few seeks, whatever
    /// the pack holds.
    func testTheTriggersSeekOneColumn() throws {
        let database = try OfflineDatabase.open(path: path)
        defer { try? database.close() }
        _ = try database.createPack(name: "p", definition: sampleDefinition())
        try database.read { db in
            let triggers = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'packfs_runs_region_tiles_%'")
            XCTAssertEqual(triggers.count, 2)
            for trigger in triggers {
                guard let begin = trigger.range(of: "BEGIN"), let end = trigger.range(of: "END", options: .backwards) else { continue }
                let statements = trigger[begin.upperBound..<end.lowerBound].split(separator: ";").map {
                    $0.replacing(/\b(new|old)\.(region_id|tile_id)/, with: "1").trimmingCharacters(in: .whitespacesAndNewlines)
                }.filter { !$0.isEmpty }
                for statement in statements {
                    let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement).map { $0["detail"] as String }
                    for step in plan where step.hasPrefix("SCAN") { XCTFail("\(statement)\nscans: \(step)") }
                    for step in plan where step.contains("USING PRIMARY KEY (region_id") {
                        XCTAssertTrue(step.contains("x=? AND min_y"), "\(statement)\nseeks no column: \(step)")
                    }
                }
            }
        }
    }
}
