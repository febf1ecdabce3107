import Basics
import Foundation
import SQLiteDB
@testable import PackStore
import TestSupport
import XCTest

/// Every query the mount runs while walking the tree goes through an index: no table scans.
final class TreeQueryPlanTests: PackFSTestCase {
    func testTreeQueriesUseIndexesOnly() throws {
        let database = try OfflineDatabase.open(path: temp.path("plans.db"))
        defer { try? database.close() }
        _ = try database.createPack(name: "a", definition: RegionDefinition(
            styleURL: "http://h/style.json", area: .bounds(Bounds(west: 0, south: 0, east: 1, north: 1)), minZoom: 0, maxZoom: 1))
        typealias SQL = OfflineDatabase.TreeSQL
        let keys = [
            SQL.nextZoom, SQL.nextColumn, SQL.zoomProbe, SQL.columnProbe, SQL.rows[0], SQL.rows[1], SQL.tileByKey,
            SQL.tileByID, SQL.sampleTile, SQL.resourceByURL, SQL.resourcesOfKind,
            SQL.holdsTile, SQL.holdsResource, SQL.tileDataByKey, SQL.tileServedByID, SQL.resourceDataByID, SQL.recordedSize,
            PackTiles.rows[0], PackTiles.rows[1], PackTiles.names[0], PackTiles.names[1], PackTiles.readySQL,
        ]
        // A download's start on a file not counted yet.
        let queries = keys.map(\.sql) + [OfflineDatabase.mapboxTileCount]
        for sql in queries {
            let plan = try database.read { db in
                let parameters = [DatabaseValueConvertible?](repeating: 1, count: sql.filter { $0 == "?" }.count)
                return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(parameters))
                    .map { $0["detail"] as String }
            }
            print(sql.split(separator: "\n").first ?? "", "\n  ", plan.joined(separator: "\n   "))
            for step in plan where step.hasPrefix("SCAN") {
                XCTFail("\(sql)\nscans: \(step)")
            }
            XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "\(sql): \(plan)")
        }
    }

    /// The indexed `mapbox://` count finds what MapLibre's plain LIKE finds, whatever the case,
    /// and whatever an app left in the column.
    func testTheMapboxCountEqualsMapLibresLike() throws {
        try OfflineDatabase.open(path: temp.path("mapbox.db")).close()
        let templates = [
            "'mapbox://a'", "'MAPBOX://b'", "'Mapbox://c'", "'mApBoX://d/{z}'", "'mapbox:/e'", "'mapboxx://f'",
            "'http://mapbox://g'", "'Nope'", "'n'", "'M'", "'m'", "CAST('mapbox://h' AS BLOB)", "x'6d6170626f783a2f2f69'",
            "7", "1.5",
        ]
        // As an app writes: plain SQL, so PackFS keeps no figures and the count is made now.
        let (indexed, plain) = try DatabaseQueue(path: temp.path("mapbox.db")).write { db -> (Int, Int) in
            for (row, template) in templates.enumerated() {
                try db.execute(sql: """
                    INSERT INTO tiles (url_template, pixel_ratio, z, x, y, accessed) VALUES (\(template), 1, 0, 0, \(row), 0)
                    """)
            }
            return (
                try Int.fetchOne(db, sql: OfflineDatabase.mapboxTileCount) ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tiles WHERE url_template LIKE 'mapbox://%'") ?? -2)
        }
        let database = try OfflineDatabase.open(path: temp.path("mapbox.db"))
        defer { try? database.close() }
        XCTAssertEqual(indexed, plain)
        XCTAssertGreaterThanOrEqual(indexed, 4)
        XCTAssertEqual(try database.tileTotals(includingAll: false).mapbox, plain)
        XCTAssertNil(try database.tileTotals(includingAll: false).all)
    }
}
