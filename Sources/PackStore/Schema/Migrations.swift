import SQLiteDB

/// Creating schema v6 and migrating versions 2 to 5, step for step as MapLibre Native does
/// (`OfflineDatabase::createSchema` and `migrateToVersion3/5/6`).
enum Migrations {
    static func create(_ db: Database) throws {
        // auto_vacuum only takes effect before the first table exists. Tried: 16 and 64 KiB pages (set here,
        // first): no faster cold reads, 9-25% more disk (docs/benchmarks.md, "Designs measured and set aside").
        try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
        try db.execute(sql: "PRAGMA synchronous = FULL")
        try db.inTransaction {
            try createTables(db)
            return .commit
        }
    }

    /// MapLibre's tables and indexes, and the version that names them (`create`, `reset`).
    static func createTables(_ db: Database) throws {
        for statement in Schema.statements { try db.execute(sql: statement) }
        try db.execute(sql: "PRAGMA user_version = \(Schema.version)")
    }

    static func migrate(_ db: Database, from version: Int) throws {
        if version <= 2 { try toVersion3(db) }
        if version <= 4 { try toVersion5(db) }
        if version <= 5 { try toVersion6(db) }
    }

    private static func toVersion3(_ db: Database) throws {
        try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
        try db.execute(sql: "VACUUM")
        try db.execute(sql: "PRAGMA user_version = 3")
    }

    // Version 4 was WAL + NORMAL, reverted before release; MapLibre resets both.
    private static func toVersion5(_ db: Database) throws {
        try db.execute(sql: "PRAGMA journal_mode = DELETE")
        try db.execute(sql: "PRAGMA synchronous = FULL")
        try db.execute(sql: "PRAGMA user_version = 5")
    }

    private static func toVersion6(_ db: Database) throws {
        try db.inTransaction {
            try db.execute(sql: "ALTER TABLE resources ADD COLUMN must_revalidate INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "ALTER TABLE tiles ADD COLUMN must_revalidate INTEGER NOT NULL DEFAULT 0")
            try db.execute(sql: "PRAGMA user_version = 6")
            return .commit
        }
    }

    /// PackFS's own tables; called inside the write transaction that first needs them.
    static func ensureBookkeeping(_ db: Database) throws {
        for statement in Schema.bookkeeping { try db.execute(sql: statement) }
        // Hashes recorded before rules were numbered were made under rule 1 (`RecordedHash.rule`).
        if try !OfflineDatabase.hasRuleColumn(db) {
            try db.execute(sql: "ALTER TABLE packfs_pack_hashes ADD COLUMN rule INTEGER NOT NULL DEFAULT 1")
        }
    }
}
