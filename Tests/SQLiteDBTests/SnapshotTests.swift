import Dispatch
import Foundation
import SQLiteDB
import XCTest

/// A pool's reads without a transaction of their own, and a thread's one snapshot over them.
final class SnapshotTests: SQLiteDBTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try openPool()
    }

    private static let count = StatementKey("SELECT count(*) FROM t")

    private func rows() throws -> Int64? { try Self.rows(pool) }

    private static func rows(_ pool: DatabasePool?) throws -> Int64? {
        try pool?.readWithoutTransaction { db in try db.cachedStatement(count).firstRow { $0.int64(0) } } ?? nil
    }

    private func insert() throws { try pool.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (1)") } }

    func testEachReadWithoutTransactionSeesTheLastCommit() throws {
        XCTAssertEqual(try rows(), 0)
        XCTAssertFalse(try pool.readWithoutTransaction { $0.isInsideTransaction }, "no BEGIN of its own")
        try insert()
        XCTAssertEqual(try rows(), 1)
    }

    func testAThreadSnapshotReadsOneSnapshotThroughout() throws {
        try pool.withThreadSnapshot {
            XCTAssertEqual(try rows(), 0)
            try insert()
            XCTAssertEqual(try rows(), 0, "committed after the snapshot was taken")
            XCTAssertTrue(try pool.readWithoutTransaction { $0.isInsideTransaction })
            try pool.withThreadSnapshot { XCTAssertEqual(try rows(), 0, "nested: the same snapshot") }
            XCTAssertEqual(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 1, "`read`: its own")
        }
        XCTAssertEqual(try rows(), 1)
        XCTAssertEqual(try pool.withThreadSnapshot { try rows() }, 1)
    }

    private func rowsAlone() throws -> Int64? {
        try pool.readAlone { db in try db.cachedStatement(Self.count).firstRow { $0.int64(0) } } ?? nil
    }

    /// A read alone joins a snapshot that has begun, and begins none: the scope's first read it is not (it
    /// reads on the thread's own reader, `ThreadReaderTests`).
    func testAReadAloneJoinsABegunSnapshotAndBeginsNone() throws {
        XCTAssertEqual(try rowsAlone(), 0)
        try pool.withThreadSnapshot {
            XCTAssertEqual(try rowsAlone(), 0)
            try insert()
            XCTAssertEqual(try rowsAlone(), 1, "nothing begun: the last commit")
            XCTAssertEqual(try rows(), 1, "the snapshot begins at this read")
            try insert()
            XCTAssertEqual(try rowsAlone(), 1, "begun: the scope's snapshot")
            XCTAssertTrue(try pool.readAlone { $0.isInsideTransaction })
        }
        XCTAssertEqual(try rowsAlone(), 2)
    }

    func testASnapshotThatThrowsEndsItsTransaction() throws {
        struct Failed: Error {}
        XCTAssertThrowsError(try pool.withThreadSnapshot {
            _ = try rows()
            throw Failed()
        })
        try insert()
        DispatchQueue.concurrentPerform(iterations: 4) { [pool] _ in
            XCTAssertEqual(try? pool?.withThreadSnapshot { try Self.rows(pool) }, 1, "every pooled connection sees the commit")
        }
    }

    /// Every connection held by a snapshot, each of its threads then asks `read` for another:
    /// none waits for a connection the others hold.
    func testReadsInsideSnapshotsDoNotWaitForEachOther() throws {
        let holding = DispatchGroup()
        let done = DispatchGroup()
        let results = [Result<Int?, Error>.Box(), Result<Int?, Error>.Box()]
        for result in results {
            holding.enter()
            done.enter()
            Thread.detachNewThread { [pool] in
                defer { done.leave() }
                result.value = Result {
                    try pool?.withThreadSnapshot {
                        _ = try Self.rows(pool)
                        holding.leave()
                        _ = holding.wait(timeout: .now() + 10)
                        return try pool?.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }
                    } ?? nil
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "no read waited for ever")
        XCTAssertEqual(try results.map { try $0.value?.get() }, [0, 0])
    }

    /// Connections opened ahead keep reading the file they opened once its path is gone.
    func testReadersOpenedAheadKeepTheirFile() throws {
        try insert()
        try pool.openReaders(2)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path("test.db") + suffix) }
        XCTAssertEqual(try rows(), 1)
        XCTAssertEqual(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") }, 1)
    }
}
