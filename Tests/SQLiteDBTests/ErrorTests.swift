import Foundation
import SQLiteDB
import XCTest

/// Failures as `DatabaseError`s: the code, SQLite's message, the SQL.
final class ErrorTests: SQLiteDBTestCase {
    func testAnErrorNamesItsSQL() throws {
        let error = databaseError { try queue.read { db in _ = try Row.fetchAll(db, sql: "SELECT * FROM nope;\n") } }
        XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
        XCTAssertEqual(error?.message, "no such table: nope")
        XCTAssertEqual(error?.description, "SQLite error 1: no such table: nope - while executing `SELECT * FROM nope`")
    }

    func testConstraintsKeepTheirExtendedCode() throws {
        try store(1)
        let error = databaseError { try queue.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (1)") } }
        XCTAssertEqual(error?.resultCode, .SQLITE_CONSTRAINT)
        XCTAssertEqual(error?.extendedResultCode.rawValue, 1555, "SQLITE_CONSTRAINT_PRIMARYKEY")
        if let code = error?.extendedResultCode {
            XCTAssertTrue(ResultCode.SQLITE_CONSTRAINT ~= code, "a primary pattern matches its family")
            XCTAssertFalse(ResultCode.SQLITE_READONLY_ROLLBACK ~= code)
        }
        XCTAssertEqual(error?.sql, "INSERT INTO t (id) VALUES (1)")
    }

    func testAFullDiskIsSaidAsSuch() throws {
        let error = databaseError {
            try queue.write { db in
                try db.execute(sql: "PRAGMA max_page_count = \(try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)")
                try db.execute(sql: "INSERT INTO t (v) VALUES (zeroblob(100000))")
            }
        }
        XCTAssertEqual(error?.resultCode, .SQLITE_FULL)
        XCTAssertEqual(error?.description.hasPrefix("SQLite error 13: database or disk is full - while executing `INSERT"), true)
    }

    func testWrongArgumentCounts() throws {
        for arguments: StatementArguments in [[], [1, 2]] {
            let error = databaseError { try queue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: arguments) } }
            XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
            XCTAssertEqual(error?.message, "wrong number of statement arguments: \(arguments.count)")
        }
        XCTAssertEqual(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 0, "nothing ran")
    }

    func testMakeStatementRefusesSeveralStatements() throws {
        let error = databaseError { try queue.writeWithoutTransaction { db in _ = try db.makeStatement(sql: "SELECT 1; SELECT 2") } }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
        try queue.writeWithoutTransaction { db in _ = try db.makeStatement(sql: "SELECT 1; -- a comment\n ;") }
    }

    func testAFileThatIsNoDatabaseFailsAtOpen() throws {
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: path("junk.db")))
        let error = databaseError { _ = try DatabaseQueue(path: path("junk.db")) }
        XCTAssertEqual(error?.resultCode, .SQLITE_NOTADB)
    }

    func testReadOnlyNeverCreates() throws {
        var configuration = Configuration()
        configuration.readonly = true
        let error = databaseError { _ = try DatabaseQueue(path: path("absent.db"), configuration: configuration) }
        XCTAssertEqual(error?.resultCode, .SQLITE_CANTOPEN)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("absent.db")))
    }

    func testAClosedQueueSaysSo() throws {
        try queue.close()
        try queue.close()
        let error = databaseError { try queue.read { _ in } }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
        XCTAssertEqual(error?.message, "Connection is closed")
    }

    func testQuotedIdentifiers() throws {
        try queue.write { db in
            let name = #"a "quoted" name"#
            try db.execute(sql: "CREATE TABLE \(name.quotedDatabaseIdentifier) (x)")
            XCTAssertTrue(try db.tableExists(name))
            XCTAssertTrue(try db.tableExists("T"), "case-insensitive")
            XCTAssertFalse(try db.tableExists("missing"))
        }
    }
}
