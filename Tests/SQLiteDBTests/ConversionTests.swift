import Foundation
import SQLiteDB
import XCTest

/// Values in and out: `fetchOne`/`fetchAll` take SQLite's own conversions (GRDB's fast path),
/// `Row.decode` is strict and throws, the subscripts never trap.
final class ConversionTests: SQLiteDBTestCase {
    func testStandardTypesRoundTrip() throws {
        try queue.write { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT ?", arguments: [42]), 42)
            XCTAssertEqual(try Int64.fetchOne(db, sql: "SELECT ?", arguments: [Int64.min]), Int64.min)
            XCTAssertEqual(try Int32.fetchOne(db, sql: "SELECT ?", arguments: [Int32(-7)]), -7)
            XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT ?", arguments: [1.5]), 1.5)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT ?", arguments: ["é\u{0}x"]), "é\u{0}x", "a NUL inside stays")
            XCTAssertEqual(try Bool.fetchOne(db, sql: "SELECT ?", arguments: [true]), true)
            XCTAssertEqual(try Data.fetchOne(db, sql: "SELECT ?", arguments: [Data([0, 1, 2])]), Data([0, 1, 2]))
            XCTAssertEqual(try DatabaseValue.fetchOne(db, sql: "SELECT NULL"), .null, "a NULL value, not no row")
        }
    }

    func testEmptyDataIsAnEmptyBlobNotNull() throws {
        try store(Data())
        try queue.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(v) FROM t"), "blob")
            XCTAssertEqual(try Data.fetchOne(db, sql: "SELECT v FROM t"), Data())
        }
        try queue.write { db in
            try db.cachedStatement(sql: "UPDATE t SET v = ?").execute(arguments: [Data()])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(v) FROM t"), "blob", "a temporary binding too")
        }
    }

    func testFetchOneIsNilForNoRowAndForNull() throws {
        try queue.read { db in
            XCTAssertNil(try Int.fetchOne(db, sql: "SELECT v FROM t"))
            XCTAssertNil(try Int.fetchOne(db, sql: "SELECT NULL"))
        }
    }

    func testFetchTakesSQLiteConversions() throws {
        try queue.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT 'abc'"), 0, "sqlite3_column_int64 of text")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT 2.9"), 2)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT 12"), "12")
            XCTAssertEqual(try Bool.fetchOne(db, sql: "SELECT 'yes'"), false)
        }
    }

    func testFetchAllOfNullThrows() throws {
        try store(nil)
        let error = databaseError { _ = try queue.read { db in try Int.fetchAll(db, sql: "SELECT v FROM t") } }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISMATCH)
        XCTAssertEqual(error?.sql, "SELECT v FROM t")
    }

    func testAValueOutOfRangeThrowsInsteadOfTrapping() throws {
        try store(Int64(1) << 40)
        let error = databaseError { _ = try queue.read { db in try Int32.fetchOne(db, sql: "SELECT v FROM t") } }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISMATCH)
        let row = try XCTUnwrap(try queue.read { db in try Row.fetchOne(db, sql: "SELECT v FROM t") })
        XCTAssertThrowsError(try row.decode(Int32.self, atIndex: 0))
        XCTAssertNil(row[0] as Int32?, "the subscript answers nil")
    }

    func testDecodeIsStrictAndNamesTheColumn() throws {
        try store("abc")
        let row = try XCTUnwrap(try queue.read { db in try Row.fetchOne(db, sql: "SELECT v, id FROM t") })
        let error = databaseError { _ = try row.decode(Int.self, forColumn: "v") }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISMATCH)
        XCTAssertTrue(error?.description.contains("column v") ?? false, error?.description ?? "")
        XCTAssertTrue(error?.description.contains("\"abc\"") ?? false, error?.description ?? "")
        XCTAssertThrowsError(try row.decode(Int?.self, forColumn: "v"), "an optional does not hide a bad value")
        XCTAssertEqual(try row.decode(Int.self, forColumn: "ID"), 1, "names are case-insensitive")
        XCTAssertEqual(try row.decode(String.self, atIndex: 0), "abc")
    }

    func testDecodeConversions() throws {
        let row = try XCTUnwrap(try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT 1.0 AS real, 1.5 AS half, 2 AS two, CAST('ok' AS BLOB) AS utf8, X'FF' AS bad, 'x' AS text")
        })
        XCTAssertEqual(try row.decode(Int.self, forColumn: "real"), 1)
        XCTAssertEqual(try row.decode(Int.self, forColumn: "half"), 1, "a real truncates, as GRDB")
        XCTAssertEqual(try row.decode(Bool.self, forColumn: "two"), true)
        XCTAssertThrowsError(try row.decode(Bool.self, forColumn: "text"))
        XCTAssertEqual(try row.decode(String.self, forColumn: "utf8"), "ok")
        XCTAssertThrowsError(try row.decode(String.self, forColumn: "bad"), "invalid UTF-8 is no String")
        XCTAssertEqual(try row.decode(Data.self, forColumn: "text"), Data("x".utf8))
        XCTAssertEqual(try row.decode(Double.self, forColumn: "two"), 2)
    }

    func testMissingColumns() throws {
        let row = try XCTUnwrap(try queue.read { db in try Row.fetchOne(db, sql: "SELECT 1 AS a") })
        XCTAssertNil(try row.decode(Int?.self, forColumn: "b"), "missing is nil for an optional")
        XCTAssertThrowsError(try row.decode(Int.self, forColumn: "b"))
        XCTAssertThrowsError(try row.decode(Int.self, atIndex: 1))
    }

    func testSubscriptsNeverTrap() throws {
        try store("abc")
        let row = try XCTUnwrap(try queue.read { db in try Row.fetchOne(db, sql: "SELECT v, NULL AS n FROM t") })
        XCTAssertNil(row["v"] as Int?, "does not convert")
        XCTAssertNil(row["n"] as String?, "NULL")
        XCTAssertNil(row["missing"] as Int?)
        XCTAssertNil(row[7] as Int?)
        XCTAssertEqual(row[7] as DatabaseValue, .null)
        XCTAssertEqual(row["v"] as String?, "abc")
        XCTAssertEqual(row[0] as DatabaseValue, "abc".databaseValue)
    }

    func testDatabaseValues() throws {
        XCTAssertEqual(1.databaseValue, 1.0.databaseValue, "an integer equals a real of its value")
        XCTAssertEqual(Set([1.databaseValue, 1.0.databaseValue]).count, 1)
        XCTAssertNotEqual(1.databaseValue, "1".databaseValue)
        XCTAssertEqual("\(DatabaseValue.null) \(2.databaseValue) \(2.5.databaseValue) \("x".databaseValue) \(Data([1, 2]).databaseValue)",
                       "NULL 2 2.5 \"x\" Data(2 bytes)")
        let row = try XCTUnwrap(try queue.read { db in try Row.fetchOne(db, sql: "SELECT 1 AS a, 'b' AS b") })
        XCTAssertEqual(row.description, "[a:1 b:\"b\"]")
    }

    func testArguments() throws {
        let values: [Int64] = [1, 2]
        let arguments = StatementArguments(values) + [nil, "x"]
        XCTAssertEqual(arguments.count, 4)
        let row = try XCTUnwrap(try queue.read { db in try Row.fetchOne(db, sql: "SELECT ?, ?, ?, ?", arguments: arguments) })
        XCTAssertEqual(row.databaseValues, [1.databaseValue, 2.databaseValue, .null, "x".databaseValue])
    }
}
