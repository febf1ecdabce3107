import Foundation
import GRDB
@testable import PackStore
import TestSupport
import XCTest

/// Every query the mount runs while walking the tree goes through an index: no table scans.
final class TreeQueryPlanTests: XCTestCase {
    func testTreeQueriesUseIndexesOnly() throws {
        let temp = try TemporaryDirectory(prefix: "packfs-plans")
        defer { temp.remove() }
        let database = try OfflineDatabase.open(path: temp.path("plans.db"))
        defer { try? database.close() }
        typealias SQL = OfflineDatabase.TreeSQL
        let queries = [
            SQL.nextZoom, SQL.nextColumn, SQL.zoomProbe, SQL.columnProbe, SQL.rows(descending: false),
            SQL.rows(descending: true), SQL.tileByKey,
            SQL.tileByID, SQL.sampleTile, SQL.resourceByURL, SQL.resourcesOfKind,
            SQL.holdsTile, SQL.holdsResource, SQL.tileDataByKey, SQL.tileDataByID, SQL.resourceDataByID,
        ]
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
}
