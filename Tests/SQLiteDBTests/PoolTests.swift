import Dispatch
import Foundation
import SQLiteDB
import XCTest

/// `DatabasePool`: WAL, readers that do not wait for the writer, snapshots, interrupts, backups.
final class PoolTests: SQLiteDBTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try openPool()
    }

    private func count() throws -> Int? { try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } }

    func testWALAndItsLog() throws {
        XCTAssertEqual(try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }, "wal")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("test.db-wal")), "readers need a log to open")
        XCTAssertFalse(try pool.read { db in try db.tableExists("sqlitedb_wal_setup") })
    }

    func testReadersSeeTablesTheWriterMadeAndDropped() throws {
        XCTAssertFalse(try pool.read { db in try db.tableExists("made") }, "the reader has loaded the schema")
        try pool.write { db in try db.execute(sql: "CREATE TABLE made (x)") }
        XCTAssertTrue(try pool.read { db in try db.tableExists("made") })
        try pool.write { db in try db.execute(sql: "DROP TABLE made") }
        XCTAssertFalse(try pool.read { db in try db.tableExists("made") })
        XCTAssertFalse(try pool.read { db in try db.tableExists("sqlite_sequence") })
    }

    func testReadsDoNotWaitForTheWriter() throws {
        try pool.write { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
            let seen = DispatchSemaphore(value: 0)
            let result = Result<Int?, Error>.Box()
            DispatchQueue.global().async { [pool] in
                result.value = Result { try pool?.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } }
                seen.signal()
            }
            XCTAssertEqual(seen.wait(timeout: .now() + 10), .success, "the read ran while the write was open")
            XCTAssertEqual(try result.value?.get() ?? nil, 0, "the last commit, not this transaction")
        }
        XCTAssertEqual(try count(), 1)
    }

    func testAConcurrentReadSeesTheSnapshotOfItsStart() throws {
        let seen = DispatchSemaphore(value: 0)
        let result = Result<Int?, Error>.Box()
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
            pool.asyncConcurrentRead { snapshot in
                result.value = Result { try Int.fetchOne(snapshot.get(), sql: "SELECT count(*) FROM t") }
                seen.signal()
            }
            try db.execute(sql: "INSERT INTO t (v) VALUES (2)")
        }
        XCTAssertEqual(seen.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(try result.value?.get() ?? nil, 1, "the row written after the read began is not in it")
        XCTAssertEqual(try count(), 2)
    }

    func testInterruptStopsAReader() throws {
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let result = Result<Int?, Error>.Box()
        DispatchQueue.global().async { [pool] in
            result.value = Result {
                try pool?.read { db in
                    started.signal()
                    return try Int.fetchOne(db, sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n")
                }
            }
            finished.signal()
        }
        started.wait()
        while finished.wait(timeout: .now() + 0.05) == .timedOut { pool.interrupt() }
        XCTAssertThrowsError(try result.value?.get()) { XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_INTERRUPT) }
        XCTAssertEqual(try count(), 0, "the reader is usable afterwards")
    }

    func testBackupCopiesTheLastCommit() throws {
        try pool.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES ('kept')") }
        let copy = try DatabaseQueue(path: path("copy.db"))
        try pool.backup(to: copy)
        XCTAssertEqual(try copy.read { db in try String.fetchAll(db, sql: "SELECT v FROM t") }, ["kept"])
        try copy.close()
    }

    func testAClosedPoolSaysSo() throws {
        try pool.close()
        XCTAssertThrowsError(try count()) { XCTAssertEqual(($0 as? DatabaseError)?.message, "Connection is closed") }
    }
}

extension Result {
    /// A result one thread sets and another reads after a semaphore.
    final class Box: @unchecked Sendable {  // set before a semaphore's signal, read after its wait
        var value: Result?
    }
}
