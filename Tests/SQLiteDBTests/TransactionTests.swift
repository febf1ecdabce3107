import Foundation
import SQLiteDB
import XCTest

/// `write`, `read`, `inTransaction` and what runs after a transaction.
final class TransactionTests: SQLiteDBTestCase {
    private struct Failure: Error {}

    private func count() throws -> Int? { try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } }

    func testWriteRollsBackWhenItsBodyThrows() throws {
        XCTAssertThrowsError(try queue.write { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
            XCTAssertTrue(db.isInsideTransaction)
            throw Failure()
        }) { XCTAssertTrue($0 is Failure, "the body's error comes back") }
        XCTAssertEqual(try count(), 0)
        try queue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (1)") }
        XCTAssertEqual(try count(), 1)
    }

    /// Every use of the writer is counted once it has ended, committed or not; reads are not.
    func testTheWriteCountMovesOnAfterEveryWriteAndNoRead() throws {
        let queued = queue.writeCount
        try queue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (1)") }
        _ = try count()
        XCTAssertEqual(queue.writeCount, queued + 1)
        try openPool()
        let start = pool.writeCount
        _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
        XCTAssertEqual(pool.writeCount, start, "reads write nothing")
        try pool.write { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (2)")
            XCTAssertEqual(pool.writeCount, start, "not before the commit")
        }
        XCTAssertEqual(pool.writeCount, start + 1)
        XCTAssertThrowsError(try pool.write { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (3)")
            throw Failure()
        })
        XCTAssertEqual(pool.writeCount, start + 2, "one rolled back counts too: the count says the writer was used, not what changed")
    }

    func testInTransactionRollsBackWhenAsked() throws {
        try queue.writeWithoutTransaction { db in
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
                return .rollback
            }
            XCTAssertFalse(db.isInsideTransaction)
        }
        XCTAssertEqual(try count(), 0)
    }

    func testReadIsReadOnly() throws {
        let error = databaseError { try queue.read { db in try db.execute(sql: "INSERT INTO t (v) VALUES (1)") } }
        XCTAssertEqual(error?.resultCode, .SQLITE_READONLY)
        try queue.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (1)") }
        XCTAssertEqual(try count(), 1, "the connection writes again after a read")
    }

    func testExecuteRunsEveryStatementWithItsArguments() throws {
        try queue.write { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (?); INSERT INTO t (v) VALUES (?), (?);", arguments: ["a", "b", "c"])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT v FROM t ORDER BY id"), ["a", "b", "c"])
        }
    }

    func testATransactionSQLiteEndedIsNotLeftToAutocommit() throws {
        try store(0)
        let error = databaseError {
            try queue.writeWithoutTransaction { db in
                try db.inTransaction {
                    try db.execute(sql: "ROLLBACK")
                    try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
                    return .commit
                }
            }
        }
        XCTAssertEqual(error?.resultCode, .SQLITE_ABORT)
        XCTAssertEqual(try count(), 1, "the insert did not run on its own")
    }

    func testATransactionLeftOpenIsRolledBack() throws {
        let error = databaseError {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN; INSERT INTO t (v) VALUES (1)")
            }
        }
        XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
        XCTAssertEqual(try count(), 0)
    }

    func testATransactionLocksADatabaseAttachedLater() throws {
        try queue.write { _ in }  // a transaction before the ATTACH
        let other = try DatabaseQueue(path: path("other.db"))
        defer { try? other.close() }
        try other.writeWithoutTransaction { db in try db.execute(sql: "CREATE TABLE x (y)") }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS side", arguments: [path("other.db")])
            try db.inTransaction {
                let error = databaseError { try other.writeWithoutTransaction { try $0.execute(sql: "INSERT INTO x VALUES (1)") } }
                XCTAssertEqual(error?.resultCode, .SQLITE_BUSY, "the attached database is locked too")
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE side")
        }
    }

    func testAfterNextTransaction() throws {
        let events = EventLog()
        try queue.write { db in
            db.afterNextTransaction(onCommit: { _ in events.add("commit 1") }, onRollback: { _ in events.add("rollback 1") })
            try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
            XCTAssertEqual(events.all, [], "not before the commit")
        }
        XCTAssertThrowsError(try queue.write { db in
            db.afterNextTransaction(onCommit: { _ in events.add("commit 2") }, onRollback: { _ in events.add("rollback 2") })
            throw Failure()
        })
        try queue.write { db in
            db.afterNextTransaction(onCommit: { _ in events.add("commit 3") })
            _ = try Int.fetchOne(db, sql: "SELECT 1")
        }
        XCTAssertEqual(events.all, ["commit 1", "rollback 2", "commit 3"], "a transaction that wrote nothing commits too")
    }
}

/// What the transaction handlers saw, in order.
final class EventLog {
    private var events: [String] = []
    func add(_ event: String) { events.append(event) }
    var all: [String] { events }
}
