import Foundation
import SQLiteDB
import XCTest

/// Base class: each test gets its own temporary directory and a `DatabaseQueue` on a fresh file in
/// it (table `t`: an integer key and one untyped column `v`), or a `DatabasePool` (`openPool`);
/// all go after the test.
class SQLiteDBTestCase: XCTestCase {
    var directory: URL!
    var queue: DatabaseQueue!
    /// A pool in place of `queue`, for the tests that call `openPool`.
    var pool: DatabasePool!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitedb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        queue = try DatabaseQueue(path: path("test.db"))
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        }
    }

    override func tearDownWithError() throws {
        try pool?.close()
        try queue?.close()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Closes `queue` and opens `pool` on its file: 5 s of busy waiting, two readers at most.
    func openPool() throws {
        try queue.close()
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.maximumReaderCount = 2
        pool = try DatabasePool(path: path("test.db"), configuration: configuration)
    }

    /// Stores `value` as row `id` of `t`.
    func store(_ value: (any DatabaseValueConvertible)?, id: Int = 1) throws {
        try queue.write { db in try db.execute(sql: "INSERT OR REPLACE INTO t (id, v) VALUES (?, ?)", arguments: [id, value]) }
    }

    /// The `DatabaseError` `body` throws (a failure when it throws nothing, or something else).
    func databaseError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> DatabaseError? {
        do {
            try body()
            XCTFail("no error", file: file, line: line)
        } catch let error as DatabaseError {
            return error
        } catch {
            XCTFail("not a DatabaseError: \(error)", file: file, line: line)
        }
        return nil
    }
}
