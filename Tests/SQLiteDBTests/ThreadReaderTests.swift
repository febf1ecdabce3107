import Dispatch
import Foundation
import SQLiteDB
import XCTest

/// Each thread's own reader for `readAlone` (`ThreadReaders`): the snapshot it keeps between reads, what ends it,
/// and its connection's life.
final class ThreadReaderTests: SQLiteDBTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try openPool()
    }

    private static let count = StatementKey("SELECT count(*) FROM t")

    private static func rowsAlone(_ pool: DatabasePool?) throws -> Int64? {
        try pool?.readAlone { db in try db.cachedStatement(count).firstRow { $0.int64(0) } } ?? nil
    }

    private func insert() throws { try pool.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (1)") } }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` on the writer: whether a reader's snapshot held it back (SQLite's "busy").
    private func checkpointWasHeldBack() throws -> Bool {
        try pool.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "PRAGMA wal_checkpoint(TRUNCATE)").firstRow { $0.int64(0) }
        } != 0
    }

    func testTheSnapshotKeptBetweenReadsHasSeenEveryWriteThatEndedBeforeTheRead() throws {
        XCTAssertEqual(try Self.rowsAlone(pool), 0)
        XCTAssertTrue(try pool.readAlone { $0.isInsideTransaction }, "the thread's reader keeps its snapshot")
        XCTAssertEqual(pool.threadReaderCount, 1)
        try insert()
        XCTAssertEqual(try Self.rowsAlone(pool), 1)
        try insert()
        try insert()
        XCTAssertEqual(try Self.rowsAlone(pool), 3)
        XCTAssertEqual(pool.threadReaderCount, 1, "one reader for the thread, however many reads")
    }

    /// A thread that read, then waits: the next write ends its snapshot, so a checkpoint can copy the whole log
    /// back and start it again (else the log grows while the thread idles); its next read sees that write.
    func testAWriteEndsTheSnapshotOfAnIdleThread() throws {
        let read = DispatchSemaphore(value: 0)
        let again = DispatchSemaphore(value: 0)
        let seen = Result<[Int64?], Error>.Box()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [pool] in
            defer { done.signal() }
            seen.value = Result {
                let first = try Self.rowsAlone(pool)
                read.signal()
                _ = again.wait(timeout: .now() + 20)
                return [first, try Self.rowsAlone(pool)]
            }
        }
        XCTAssertEqual(read.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(pool.threadReaderCount, 1)
        try insert()
        XCTAssertFalse(try checkpointWasHeldBack(), "the idle thread's snapshot ended with the write")
        again.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(try seen.value?.get(), [0, 1])
    }

    /// While a write runs, a read keeps no snapshot: one kept through the write's commit would hold back the
    /// checkpoint there, and with reads going on the log would never start over. Once it has ended, one is kept.
    func testAReadWhileAWriteRunsKeepsNoSnapshot() throws {
        let writing = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [pool] in
            defer { done.signal() }
            try? pool?.write { db in
                try db.execute(sql: "INSERT INTO t (v) VALUES (1)")
                writing.signal()
                _ = finish.wait(timeout: .now() + 20)
            }
        }
        XCTAssertEqual(writing.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(try Self.rowsAlone(pool), 0, "not committed yet")
        XCTAssertFalse(try pool.readAlone { $0.isInsideTransaction }, "a write runs: the read is alone")
        finish.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(try Self.rowsAlone(pool), 1)
        XCTAssertTrue(try pool.readAlone { $0.isInsideTransaction }, "no write runs: the snapshot is kept")
    }

    /// A thread's reader closes when the thread ends; the pool's close closes the others, so nothing keeps
    /// the file in WAL mode once the pool is closed.
    func testAReaderClosesWithItsThreadAndWithThePool() throws {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [pool] in
            _ = try? Self.rowsAlone(pool)
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        XCTAssertTrue(waitUntil { self.pool.threadReaderCount == 0 }, "the thread's exit closed its reader")

        XCTAssertEqual(try Self.rowsAlone(pool), 0)
        XCTAssertEqual(pool.threadReaderCount, 1)
        try pool.close()
        XCTAssertEqual(pool.threadReaderCount, 0)
        XCTAssertThrowsError(try Self.rowsAlone(pool), "closed")
        pool = nil
        let queue = try DatabaseQueue(path: path("test.db"))
        defer { try? queue.close() }
        XCTAssertEqual(try queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }, "delete")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("test.db-wal")), "no reader held the log")
    }

    /// A read-only pool's writer writes nothing, so its count says nothing of another process's writes: its
    /// thread readers keep no snapshot and each read sees the last commit.
    func testAReadOnlyPoolsThreadReaderSeesAnotherWritersCommits() throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        let readOnly = try DatabasePool(path: path("test.db"), configuration: configuration)
        defer { try? readOnly.close() }
        XCTAssertEqual(try Self.rowsAlone(readOnly), 0)
        XCTAssertFalse(try readOnly.readAlone { $0.isInsideTransaction })
        try insert()
        XCTAssertEqual(try Self.rowsAlone(readOnly), 1)
    }

    /// Past `maximumReaderCount` threads with a reader, a thread reads from the pool.
    func testThreadsPastTheMaximumReadFromThePool() throws {
        let reading = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        let results = (0..<3).map { _ in Result<Int64?, Error>.Box() }
        for result in results {
            reading.enter()
            Thread.detachNewThread { [pool] in
                result.value = Result { try Self.rowsAlone(pool) }
                reading.leave()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        XCTAssertEqual(reading.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(pool.threadReaderCount, 2, "the pool's maximum")
        XCTAssertEqual(try results.map { try $0.value?.get() }, [0, 0, 0])
        for _ in results { release.signal() }
    }

    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}
