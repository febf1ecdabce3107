import SQLiteDB

extension OfflineDatabase {
    /// Deletes everything and leaves a fresh v6 database in the same file (created when absent).
    /// A file that is not an offline database is refused, never deleted: it may be the user's.
    public static func reset(path: String, fileMode: UInt32 = defaultFileMode) throws {
        let database = try open(path: path, mode: .command, fileMode: fileMode)
        defer { try? database.close() }
        try database.wrap {
            try database.writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    let tables = try String.fetchAll(db, sql: """
                        SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence'
                        """)
                    // Children before parents: dropping a parent first fails the children's checks.
                    let children = tables.filter { $0.hasPrefix("region_") || $0.hasPrefix("packfs_") }
                    for table in children + tables.filter({ !children.contains($0) }) { try db.execute(sql: "DROP TABLE \(table.quotedDatabaseIdentifier)") }
                    if try db.tableExists("sqlite_sequence") { try db.execute(sql: "DELETE FROM sqlite_sequence") }
                    try Migrations.createTables(db)
                    return .commit
                }
                try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
                try db.execute(sql: "VACUUM")
            }
        }
    }
}
