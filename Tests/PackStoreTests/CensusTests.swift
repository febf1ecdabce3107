import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// The background count's passes (`Census`, `CensusPass`) find exactly what the plain SQL they replace finds
/// (a count of `tiles`, `LIKE` per row, `NOT EXISTS` per row, a join sorted by coordinates), on a
/// file an app could leave: ids out of coordinate order and with gaps, ambient rows before,
/// between and after the members, shared tiles, odd templates, text, NULL and non-integer values,
/// memberships naming no tile. And none of their statements scans a table or sorts.
final class CensusTests: StoreTestCase {
    private let template = "http://a/{z}/{x}/{y}.pbf"

    /// MapLibre's schema and rows written with plain SQL: packs 1-3 over shuffled tile ids.
    private func makeDatabase() throws {
        try OfflineDatabase.open(path: path).close()
        // Foreign keys off, as an app may write (memberships naming no tile); set outside a transaction.
        let queue = try raw()
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        try queue.write { db in
            for region in 1...3 { try db.execute(sql: "INSERT INTO regions (id, definition) VALUES (?, '{}')", arguments: [region]) }
            // Pack 1: three columns of 1,500 rows, a hole after every third, inserted in a shuffled
            // id order (out-of-order rows for the runs); every seventh id left out (gaps).
            let coordinates = (0..<4500).map { ($0 / 1500, $0 % 1500 + $0 % 1500 / 3) }.shuffled()
            for (index, (x, y)) in coordinates.enumerated() {
                let id = 100 + index + index / 6
                try tile(db, id: id, x: x, y: y, data: "randomblob(\(index % 40))")
                try db.execute(sql: "INSERT OR IGNORE INTO region_tiles (region_id, tile_id) VALUES (1, ?)", arguments: [id])
                // Pack 2 shares every fifth tile; ambient rows sit in the gaps.
                if index % 5 == 0 { try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (2, ?)", arguments: [id]) }
                if index % 6 == 5 { try tile(db, id: id + 1, x: 50, y: index, data: "randomblob(7)", etag: "'e'") }
            }
            try oddRows(db)
        }
    }

    private func tile(_ db: Database, id: Int, template: String? = nil, x: Any = 0, y: Any, data: String, etag: String = "NULL") throws {
        let templateSQL = template ?? "'\(self.template)'"
        try db.execute(sql: """
            INSERT INTO tiles (id, url_template, pixel_ratio, z, x, y, data, etag, compressed, accessed)
              VALUES (\(id), \(templateSQL), 1, 12, \(x), \(y), \(data), \(etag), 0, 1)
            """)
    }

    /// Ambient rows first and last, `mapbox://` templates in any case (one a blob), text and NULL
    /// data, a coordinate that is text, rows at the ends of the 64-bit range, memberships naming
    /// no tile (a real, a text, a missing id), resources linked and ambient.
    private func oddRows(_ db: Database) throws {
        try tile(db, id: 1, x: 70, y: 0, data: "randomblob(30)")
        try tile(db, id: 60_000, x: 70, y: 1, data: "randomblob(3)")
        try tile(db, id: 90, template: "'MAPBOX://tiles/{z}/{x}/{y}'", y: 5, data: "'héllo'")
        try tile(db, id: 91, template: "CAST('mapbox://blob/{z}' AS BLOB)", y: 6, data: "NULL")
        try tile(db, id: 92, template: "'mapbox://ambient/{z}'", y: 7, data: "x'00'")
        try tile(db, id: 93, y: "'abc'", data: "randomblob(9)")
        try tile(db, id: 94, x: 9, y: Int64.max, data: "randomblob(2)")
        try tile(db, id: 95, x: 9, y: Int64.max - 1, data: "randomblob(2)")
        try tile(db, id: 96, x: 9, y: Int64.min, data: "randomblob(2)")
        // Ids at both ends of the 64-bit range: the one pass's chunks neither overflow nor stop short.
        try tile(db, id: Int(Int64.max), x: 9, y: 3, data: "randomblob(4)")
        try tile(db, id: Int(Int64.min), x: 9, y: 4, data: "randomblob(5)")
        try tile(db, id: Int(Int64.max) - 1, x: 71, y: 4, data: "randomblob(6)")
        for id in [90, 91, 93, 94, 95, 96, Int(Int64.max), Int(Int64.min)] {
            try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (3, ?)", arguments: [id])
        }
        try db.execute(sql: "INSERT INTO region_tiles (region_id, tile_id) VALUES (3, 2.5), (3, 'zz'), (3, 55555), (2, 59999)")
        try db.execute(sql: """
            INSERT INTO resources (id, url, kind, data, accessed) VALUES (1, 'http://a/style.json', 1, randomblob(70), 1),
              (2, 'http://a/ambient.json', 2, 'text', 1)
            """)
        try db.execute(sql: "INSERT INTO region_resources (region_id, resource_id) VALUES (1, 1), (3, 1)")
    }

    /// The one pass (`CensusPass`) in chunks of `span` ids, its parts run one after another.
    private func onePass(_ db: Database, span: Int64) throws -> [Counting.Measured] {
        let pass = CensusPass(packs: (1...3).map(RegionID.init(rawValue:)), span: span)
        let parts = try pass.parts(workers: 2, stopped: { false }).map { try $0(db) }
        return try (0...3).map { index in try Counting.combine(parts.map { $0[index] }) }
    }

    func testTheOnePassEqualsThePlainSQL() throws {
        try makeDatabase()
        try raw().read { db in
            let usage = try AmbientCache.usage(db)
            let totals: [Int64] = [
                try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM resources") ?? -1,
                try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles") ?? -1,
                try Int64.fetchOne(db, sql: "SELECT SUM(url_template LIKE 'mapbox://%') FROM tiles") ?? -1,
                Int64(usage.resources), Int64(usage.tiles), usage.bytes,
            ]
            XCTAssertEqual(totals[2], 2, "the fixture's mapbox tiles (upper case counts, a blob does not)")
            XCTAssertGreaterThan(usage.tiles, 700, "the fixture's ambient tiles")
            // A span of 7 ids: chunks end inside runs, between shared tiles, and skip empty stretches.
            for span: Int64 in [7, 1 << 20] {
                let measured = try onePass(db, span: span)
                XCTAssertEqual(measured[0].figures, totals, "totals, span \(span)")
                for region in 1...3 {
                    let counts = try OfflineDatabase.counts(of: RegionID(rawValue: Int64(region)), db)
                    XCTAssertEqual(
                        measured[region].figures, [Int64(counts.resources), counts.resourceBytes, Int64(counts.tiles), counts.tileBytes],
                        "pack \(region), span \(span)")
                    let truth = try Runs.measure(RegionID(rawValue: Int64(region)), db)
                    XCTAssertEqual(normalized(measured[region].runs), Set(truth.map(describe)), "pack \(region)'s runs, span \(span)")
                }
            }
        }
    }

    /// Runs as `Runs.finish` stores them: each column's ranges united.
    private func normalized(_ runs: [Runs.Row]) -> Set<String> {
        var columns: [Runs.Column: [ClosedRange<Int64>]] = [:]
        for run in runs { columns[run.column, default: []].append(run.minY...run.maxY) }
        return Set(columns.flatMap { column, ranges in
            Runs.union(ranges).map { describe(Runs.Row(column: column, minY: $0.lowerBound, maxY: $0.upperBound)) }
        })
    }

    func testEachPacksFiguresAndRunsEqualTheirPlainSQL() throws {
        try makeDatabase()
        try raw().read { db in
            for region in (1...3).map(RegionID.init(rawValue:)) {
                let counts = try OfflineDatabase.counts(of: region, db)
                let measured = try Census.pack(region, db)
                XCTAssertEqual(measured.figures, [Int64(counts.resources), counts.resourceBytes, Int64(counts.tiles), counts.tileBytes], "pack \(region)")
                let truth = try Runs.measure(region, db)
                XCTAssertEqual(Set(measured.runs.map(describe)), Set(truth.map(describe)), "pack \(region)'s runs")
                XCTAssertEqual(measured.runs.count, truth.count, "pack \(region): no run twice")
                XCTAssertEqual(Set(Runs.extents(measured.runs).map(describe)), Set(Runs.extents(truth).map(describe)), "pack \(region)'s extents")
            }
            XCTAssertGreaterThan(try Runs.measure(RegionID(rawValue: 1), db).count, 1000, "pack 1 has holes")
        }
    }

    private func describe(_ run: Runs.Row) -> String {
        "\(run.column.urlTemplate) \(run.column.pixelRatio) \(run.column.z)/\(run.column.x) \(run.minY)-\(run.maxY)"
    }

    /// Each pass reads an index in its order (or seeks): no table scan, no sort.
    func testTheCountsStatementsSeekOrReadAnIndexInOrder() throws {
        try makeDatabase()
        let statements = [
            Census.packTilesSQL, CensusPass.tilesSQL, CensusPass.membersSQL, CensusPass.firstIDSQL, CensusPass.holdersSQL,
            CensusPass.ambientCostSQL,
        ]
        try raw().read { db in
            for sql in statements {
                let parameters = [DatabaseValueConvertible?](repeating: 1, count: sql.filter { $0 == "?" }.count)
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(parameters))
                    .map { $0["detail"] as String }
                for step in plan {
                    let scansTable = step.hasPrefix("SCAN") && !step.contains("COVERING INDEX") && step != "SCAN holders"
                        && step != "SCAN CONSTANT ROW"
                    XCTAssertFalse(scansTable || step.contains("TEMP B-TREE"), "\(sql)\n\(plan)")
                }
            }
        }
    }
}
