import CSQLite
import Foundation
import SQLiteDB
import XCTest

/// Prepared statements: the cache, resets, arguments kept between executions.
final class StatementTests: SQLiteDBTestCase {
    func testCachedStatementsAreReusedAndResetAfterEachFetch() throws {
        try queue.write { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (1), (2), (3)")
            let first = try db.cachedStatement(sql: "SELECT v FROM t ORDER BY id")
            XCTAssertTrue(first === (try db.cachedStatement(sql: "SELECT v FROM t ORDER BY id")))
            XCTAssertEqual(try Int.fetchOne(first), 1)
            XCTAssertEqual(sqlite3_stmt_busy(first.sqliteStatement), 0, "reset after the first row: no read left open")
            XCTAssertEqual(try Int.fetchAll(first), [1, 2, 3])
            XCTAssertEqual(try Row.fetchAll(first).count, 3)
        }
    }

    func testAFailedCachedStatementIsPreparedAgain() throws {
        try store(1)
        try queue.writeWithoutTransaction { db in
            let sql = "INSERT INTO t (id, v) VALUES (?, 'x')"
            let statement = try db.cachedStatement(sql: sql)
            XCTAssertThrowsError(try statement.execute(arguments: [1]))
            let again = try db.cachedStatement(sql: sql)
            XCTAssertFalse(statement === again)
            try again.execute(arguments: [2])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t"), 2)
        }
    }

    func testArgumentsSetOnceServeLaterExecutions() throws {
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (v) VALUES (?)")
            try insert.execute(arguments: ["temporary"])
            try insert.execute()  // the same arguments, bound again
            try insert.setArguments(["set"])
            try insert.execute()
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id"), ["temporary", "temporary", "set"])
            try db.execute(sql: "UPDATE t SET v = 'u'")
            XCTAssertEqual(db.changesCount, 3)
            XCTAssertEqual(db.lastInsertedRowID, 3)
        }
    }

    func testUnsetArgumentsAreAnError() throws {
        let error = databaseError { try queue.write { db in try db.makeStatement(sql: "INSERT INTO t (v) VALUES (?)").execute() } }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
    }

    func testCursorStepsRowByRow() throws {
        try queue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES ('a'), ('b')") }
        try queue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT v FROM t WHERE id >= ? ORDER BY id", arguments: [1])
            var seen: [String] = []
            while let row = try cursor.next() { seen.append(try row.decode(forColumn: "v")) }
            XCTAssertEqual(seen, ["a", "b"])
            XCTAssertNil(try cursor.next())
        }
    }

    /// Numbers, texts, blobs and NULL in any order bind in place, each at its own parameter, and
    /// the statement reads them all before the texts' and blobs' bytes go.
    func testMixedArgumentsBindInPlaceInOrder() throws {
        let sql = "SELECT quote(?) || ' ' || quote(?) || ' ' || quote(?) || ' ' || quote(?) || ' ' || quote(?) || ' ' || quote(?)"
        let arguments: StatementArguments = [7, "a'b", Data([0xCA, 0xFE]), 2.5, nil, Int32(-3)]
        let quoted = try queue.read { db in try String.fetchOne(db.cachedStatement(sql: sql), arguments: arguments) }
        XCTAssertEqual(quoted, "7 'a''b' X'CAFE' 2.5 NULL -3")
        let numbersAfterText: StatementArguments = ["t", 1, 2, 3]
        let joined = try queue.read { db in try String.fetchOne(db, sql: "SELECT ? || ? || ? || ?", arguments: numbersAfterText) }
        XCTAssertEqual(joined, "t123")
    }

    /// A statement bound by the caller on SQLite's handle (a cold tile's lookup): the row comes back, the statement
    /// is reset and unbound after, a failing bind is an error naming it, and arguments set before are bound again
    /// by the next run given none.
    func testFirstRowBindingOnTheHandleReadsOneRowAndLeavesNothingBound() throws {
        try queue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES ('a'), ('b')") }
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT v FROM t WHERE id = ? AND v = ?")
            try statement.setArguments([1, "a"])
            let found = try statement.firstRow(binding: { handle in
                let text = "b".withCString { sqlite3_bind_text(handle, 2, $0, -1, packfs_sqlite_transient()) }
                return text == SQLITE_OK ? sqlite3_bind_int64(handle, 1, 2) : text
            }) { $0.text(0) }
            XCTAssertEqual(found ?? nil, "b")
            XCTAssertEqual(sqlite3_stmt_busy(statement.sqliteStatement), 0, "reset after the row")
            XCTAssertNil(sqlite3_bind_parameter_name(statement.sqliteStatement, 1), "positional parameters")
            XCTAssertNil(try statement.firstRow(binding: { sqlite3_bind_int64($0, 1, 9) }) { _ in true }, "no row: nil")
            XCTAssertEqual(try String.fetchOne(statement), "a", "the arguments set before, bound again")
            let failed = databaseError { _ = try statement.firstRow(binding: { sqlite3_bind_int64($0, 3, 1) }) { _ in true } }
            XCTAssertEqual(failed?.resultCode.rawValue, SQLITE_RANGE, "a parameter the statement does not have")
        }
    }

    func testLargeArgumentListsAreCopied() throws {
        let values = (0..<30).map { "value \($0)" }
        let sql = "SELECT " + Array(repeating: "?", count: 30).joined(separator: " || ")
        let joined = try queue.write { db in try String.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(values)) }
        XCTAssertEqual(joined, values.joined())
    }
}
