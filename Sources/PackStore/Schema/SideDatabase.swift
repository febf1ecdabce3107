import FoundationEssentials
import SQLiteDB

#if canImport(Glibc)
    import Glibc
#endif

/// Another offline database read into this one (a merge, as MapLibre's `mergeOfflineRegions`):
/// opened on a copy the caller made, never created, and attached to the writer's connection as
/// schema `side` so that its rows move with set-based SQL inside one transaction.
extension OfflineDatabase {
    /// Opens an existing offline database to merge from, migrating versions 2-5 as `open` does but creating
    /// nothing (an absent, empty or tableless file is refused). Call it on a copy: migrating writes to it.
    public static func openSide(path: String) throws -> OfflineDatabase {
        // Recovering: a hot journal copied with the file is rolled back on the copy, as SQLite does.
        switch try FileInspection.inspect(path: path, recovering: true) {
        case .absent: throw StoreError.fileNotFound(path: path)
        case .empty:
            var info = stat()
            if stat(path, &info) == 0, info.st_size == 0 { throw StoreError.notSQLite(path: path) }
            throw StoreError.notOfflineDatabase(path: path, missing: Schema.tables)
        case .offline: return try open(path: path, mode: .command)
        }
    }

    /// Runs `body` in one write transaction with `path` attached as schema `side` (ATTACH is refused inside
    /// a transaction); `body` gets the connection too, for SQL naming `side.` and `main.` tables.
    public func write<T>(attaching path: String, _ body: (StoreBatch, Database) throws -> T) throws -> T {
        defer {
            packList.invalidate()
            statuses.invalidate()
        }
        try requireOwnFile()
        return try wrap {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS side", arguments: [path])
                defer { try? db.execute(sql: "DETACH DATABASE side") }
                var result: T?
                try db.inTransaction {
                    try keepCounting(db)
                    result = try body(StoreBatch(db: db), db)
                    return .commit
                }
                guard let result else { throw StoreError.sqlite("\(path): the merge transaction gave no result") }
                return result
            }
        }
    }
}

extension StoreBatch {
    /// Every pack as `OfflineDatabase.packs()` shows it, read inside this transaction.
    public func packs() throws -> [Pack] { try OfflineDatabase.packs(db) }

    /// Trims the ambient cache to its limit inside this transaction (after a merge brought rows).
    /// The bookkeeping tables are made first: SQLite resolves an unqualified table name in `main`
    /// before attached schemas, and a `packfs_settings` only the side holds must not be read.
    public func trimAmbient() throws -> EvictionReport {
        try Migrations.ensureBookkeeping(db)
        return try AmbientCache.trim(db, to: AmbientCache.limit(db))
    }
}

extension Pack {
    /// The description's JSON `name` when a valid pack name; nil for a pack shown as `region-<id>`.
    public var storedName: String? { PackDescription.name(in: description) }

    /// `description` with its `name` replaced and every other field kept; one that is no JSON object
    /// keeps its text under `app_description`, as a rename does.
    public static func description(_ description: Data?, renamedTo name: String) -> Data {
        var fields = PackDescription.fields(of: description)
        fields["name"] = .string(name)
        return PackDescription.encode(fields)
    }
}
