import Foundation
import PackStore
import SQLiteDB
import XCTest

final class SchemaTests: StoreTestCase {
    /// The reference file holds MapLibre's schema as published; comments stripped, whitespace
    /// folded, split on `;`.
    private func referenceStatements() throws -> [String] {
        let url = Bundle.module.url(forResource: "Reference/offline_schema_v6", withExtension: "sql")!
        let text = try String(contentsOf: url, encoding: .utf8)
        let stripped = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let range = line.range(of: "--") else { return line }
            return line[..<range.lowerBound]
        }.joined(separator: "\n")
        return stripped.split(separator: ";").map(Self.fold).filter { !$0.isEmpty }
    }

    static func fold<S: StringProtocol>(_ sql: S) -> String {
        sql.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            .replacingOccurrences(of: "( ", with: "(").replacingOccurrences(of: " )", with: ")")
    }

    func testFreshDatabaseHasMapLibreSchemaStatementForStatement() throws {
        try OfflineDatabase.open(path: path).close()
        let created = try raw().read { db in
            try String.fetchAll(db, sql: """
                SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name != 'sqlite_sequence'
                ORDER BY rowid
                """)
        }.map(Self.fold)
        let reference = try referenceStatements()
        XCTAssertEqual(reference.count, 9)
        XCTAssertEqual(created, reference)
    }

    func testPragmasAndVersion() throws {
        try OfflineDatabase.open(path: path).close()
        try raw().read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA user_version"), 6)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"), 2, "INCREMENTAL")
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "delete")
        }
    }

    func testSessionRunsInWALAndLeavesDeleteModeOnClose() throws {
        let session = try OfflineDatabase.open(path: path, mode: .mount)
        let mode = try raw().read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        XCTAssertEqual(mode, "wal")
        try session.read { db in XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), 1) }
        try session.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
        let after = try raw().read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        XCTAssertEqual(after, "delete")
    }

    func testResetRecreatesPureSchemaAndEmptiesEverything() throws {
        let database = try OfflineDatabase.open(path: path)
        let pack = try database.createPack(name: "a", definition: sampleDefinition())
        try database.setStatus(PackStatus(state: .complete), of: pack.id)
        try database.setAmbientLimit(1000)
        try database.close()
        try OfflineDatabase.reset(path: path)
        try raw().read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM regions"), 0)
            XCTAssertFalse(try db.tableExists("packfs_pack_state"))
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA user_version"), 6)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA auto_vacuum"), 2)
        }
        let statements = try raw().read {
            try String.fetchAll($0, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name != 'sqlite_sequence' ORDER BY rowid")
        }.map(Self.fold)
        XCTAssertEqual(statements, try referenceStatements())
    }

    func testResetCreatesMissingFile() throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        try OfflineDatabase.reset(path: path)
        XCTAssertEqual(try raw().read { try Int.fetchOne($0, sql: "PRAGMA user_version") }, 6)
    }
}
