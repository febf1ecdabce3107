import CSQLite
import Foundation
import SQLiteDB
import XCTest

/// The hot path's reads: statements found by key, rows read in place, blobs without a copy.
final class RowInPlaceTests: SQLiteDBTestCase {
    private static let values = StatementKey("SELECT v FROM t ORDER BY id")

    func testKeyedStatementsAreFoundByTheKeyItself() throws {
        try queue.write { db in
            let first = try db.cachedStatement(Self.values)
            XCTAssertTrue(first === (try db.cachedStatement(Self.values)))
            XCTAssertFalse(first === (try db.cachedStatement(StatementKey(Self.values.sql))), "another key: its own statement")
            XCTAssertFalse(first === (try db.cachedStatement(sql: Self.values.sql)), "the text: its own entry")
        }
    }

    func testAFailedKeyedStatementIsPreparedAgain() throws {
        try store(1)
        let insert = StatementKey("INSERT INTO t (id, v) VALUES (?, 'x')")
        try queue.writeWithoutTransaction { db in
            let statement = try db.cachedStatement(insert)
            XCTAssertThrowsError(try statement.execute(arguments: [1]))
            let again = try db.cachedStatement(insert)
            XCTAssertFalse(statement === again)
            try again.execute(arguments: [2])
        }
    }

    func testEachRowIsReadInPlaceWithSQLitesConversions() throws {
        for (id, value) in [(1, 7), (2, "12abc"), (3, nil), (4, Data([1, 2])), (5, 2.5)] as [(Int, (any DatabaseValueConvertible)?)] {
            try store(value, id: id)
        }
        var seen: [String] = []
        let count = try queue.read { db in
            try db.cachedStatement(Self.values).forEachRow { row in
                seen.append("\(row.int64(0)) \(row.integer(0).map(String.init) ?? "-") \(row.bool(0)) \(row.text(0) ?? "NULL")"
                    + " \(row.blob(0)?.count ?? -1) \(row.isNull(0)) \(row.holdsBytes(0))")
            }
        }
        XCTAssertEqual(count, 5)
        XCTAssertEqual(seen, [
            "7 7 true 7 1 false false", "12 - true 12abc 5 false true", "0 - false NULL -1 true false",
            "0 - false \u{1}\u{2} 2 false true", "2 - true 2.5 3 false false",
        ])
    }

    func testABlobIsHandedOverWhereSQLiteHoldsIt() throws {
        try store(Data(repeating: 7, count: 5000), id: 1)
        try store(Data(), id: 2)
        try store(nil, id: 3)
        let sizes = try queue.read { db -> [Int?] in
            var sizes: [Int?] = []
            try db.cachedStatement(Self.values).forEachRow { row in
                row.withUnsafeBlob(at: 0) { bytes in
                    if let bytes, bytes.count > 0 {
                        XCTAssertEqual(bytes.baseAddress, sqlite3_column_blob(row.sqliteStatement, 0), "no copy")
                        XCTAssertTrue(bytes.allSatisfy { $0 == 7 })
                    }
                    sizes.append(bytes?.count)
                }
            }
            return sizes
        }
        XCTAssertEqual(sizes, [5000, 0, nil], "a blob, an empty blob, NULL")
    }

    func testFirstRowStopsThereAndResets() throws {
        try store("a", id: 1)
        try store("b", id: 2)
        try queue.read { db in
            let statement = try db.cachedStatement(StatementKey("SELECT v FROM t WHERE id >= ? ORDER BY id"))
            XCTAssertEqual(try statement.firstRow(arguments: [1]) { $0.text(0) }, "a")
            XCTAssertEqual(sqlite3_stmt_busy(statement.sqliteStatement), 0, "reset: no read left open")
            XCTAssertEqual(try statement.firstRow(arguments: [2]) { $0.text(0) }, "b")
            XCTAssertNil(try statement.firstRow(arguments: [3]) { _ in true }, "no row")
        }
    }

    func testAFailedStepThrowsAndResets() throws {
        try store(1)
        try queue.read { db in
            let statement = try db.cachedStatement(StatementKey("SELECT abs(-9223372036854775807 - v) FROM t"))
            let error = databaseError { _ = try statement.forEachRow { _ in XCTFail("no row") } }
            XCTAssertEqual(error?.message, "integer overflow")
            XCTAssertEqual(sqlite3_stmt_busy(statement.sqliteStatement), 0)
        }
    }
}
