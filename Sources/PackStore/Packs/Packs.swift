import Basics
import FoundationEssentials
import SQLiteDB

/// Creating, finding, renaming, redefining and removing packs.
extension OfflineDatabase {
    /// Every pack, in id order. Names are unique even up to Unicode normalisation: a name an earlier pack already
    /// shows (possible in apps' databases) falls back to `region-<id>`, or `region-<id>-<n>` when that is taken too.
    public func packs() throws -> [Pack] {
        // Without the lock another process may change the file: read afresh every time.
        guard mode != .readOnly else { return try read { db in try Self.packs(db) } }
        return try packList.value(.all) { try read { db in try Self.packs(db) } }
    }

    /// Runs a write that changes the `regions` table, then drops the cached pack list.
    func writePacks<T>(_ body: (StoreBatch) throws -> T) throws -> T {
        defer { packList.invalidate() }
        return try write(body)
    }

    static func packs(_ db: Database) throws -> [Pack] {
        // A pack being removed (Removals.swift) is gone already.
        let rows = try Row.fetchAll(db, sql: "SELECT id, definition, description FROM regions \(Removals.visible(db)) ORDER BY id")
        var taken = Set<String>()
        // An app's file may hold any type in any column (no STRICT): a column that does not decode reads as
        // absent, and a row without an integer id is skipped.
        return rows.compactMap { row in
            guard let rawID = try? row.decode(Int64.self, atIndex: 0) else { return nil }
            let id = RegionID(rawValue: rawID)
            let description = (try? row.decode(Data?.self, atIndex: 2)) ?? nil
            var name = PackDescription.name(in: description) ?? "region-\(id.rawValue)"
            if taken.contains(name) { name = fallbackName(id, taken: taken) }
            taken.insert(name)
            let text = ((try? row.decode(String?.self, atIndex: 1)) ?? nil) ?? ""
            return Pack(
                id: id, name: name, definitionText: text,
                definition: try? RegionDefinition(mapLibreJSON: text), description: description)
        }
    }

    /// `region-<id>`, or `region-<id>-2`, `-3`... when a pack already shows that name.
    private static func fallbackName(_ id: RegionID, taken: Set<String>) -> String {
        let base = "region-\(id.rawValue)"
        var name = base
        var serial = 1
        while taken.contains(name) {
            serial += 1
            name = base + "-\(serial)"
        }
        return name
    }

    public func pack(named name: String) throws -> Pack {
        guard let pack = try packs().first(where: { PackName.same($0.name, name) }) else {
            throw StoreError.packNotFound(name)
        }
        return pack
    }

    public func pack(id: RegionID) throws -> Pack {
        guard let pack = try packs().first(where: { $0.id == id }) else {
            throw StoreError.regionNotFound(id)
        }
        return pack
    }

    /// Creates an empty pack (state `inactive` until a download starts).
    public func createPack(
        name: String, definition: RegionDefinition, metadata: JSONValue? = nil
    ) throws -> Pack {
        try PackName.validate(name)
        let id = try writePacks { batch -> RegionID in
            try Self.requireFree(name, batch.database)
            return try Self.insertPack(name: name, definition: definition, metadata: metadata, batch.database)
        }
        return try pack(id: id)
    }

    /// Creates pack `name`, or stores what changed of its definition and metadata, and marks it `active`: a download
    /// to this definition is owed, for the mount and `packfs download` alike. One transaction, so no other definition
    /// of the name interleaves, and a kill before the download leaves a pack the next mount converges, never one
    /// `complete` with its old content. The state is the one a run records at its start: a region file writes it once.
    /// `tileStorage` is the region file's: a file that does not name it asks for the default.
    public func definePack(
        name: String, definition: RegionDefinition, metadata: JSONValue?, tileStorage: TileStorage = .compressed
    ) throws -> Pack {
        try PackName.validate(name)
        let id = try writePacks { batch -> RegionID in
            let db = batch.database
            let id = try Self.storeDefinition(
                name: name, definition: definition, description: (metadata, tileStorage), db)
            try batch.setStatus(PackStatus(state: .active), of: id)
            return id
        }
        return try pack(id: id)
    }

    /// Inserts pack `name`, or updates what changed of the pack of that name; returns its id.
    private static func storeDefinition(
        name: String, definition: RegionDefinition, description: (metadata: JSONValue?, storage: TileStorage),
        _ db: Database
    ) throws -> RegionID {
        let (metadata, storage) = description
        guard let pack = try packs(db).first(where: { PackName.same($0.name, name) }) else {
            try requireFree(name, db)
            return try insertPack(name: name, definition: definition, metadata: metadata, tileStorage: storage, db)
        }
        if pack.definition != definition {
            try db.execute(
                sql: "UPDATE regions SET definition = ? WHERE id = ?",
                arguments: [definition.mapLibreJSON, pack.id.rawValue])
            try Staging.restartPendingRefresh(of: pack.id, db)
        }
        if pack.metadata != metadata || pack.tileStorage != storage {
            var fields = PackDescription.fields(of: pack.description)
            fields["name"] = .string(pack.name)
            fields["metadata"] = metadata
            fields[TileStorage.key] = PackDescription.recorded(storage)
            try storeDescription(fields, of: pack.id, db)
        }
        return pack.id
    }

    static func insertPack(
        name: String, definition: RegionDefinition, metadata: JSONValue?, tileStorage: TileStorage = .compressed,
        _ db: Database
    ) throws -> RegionID {
        let fields: [String: JSONValue?] = [
            "name": .string(name), "metadata": metadata, TileStorage.key: PackDescription.recorded(tileStorage),
        ]
        try db.execute(
            sql: "INSERT INTO regions (definition, description) VALUES (?, ?)",
            arguments: [definition.mapLibreJSON, PackDescription.encode(fields.compactMapValues { $0 })])
        return RegionID(rawValue: db.lastInsertedRowID)
    }

    public func renamePack(_ id: RegionID, to name: String) throws {
        try PackName.validate(name)
        try updateDescription(id) { db, pack, fields in
            if !PackName.same(pack.name, name) { try Self.requireFree(name, db) }
            fields["name"] = .string(name)
        }
    }

    private func updateDescription(
        _ id: RegionID, _ change: (Database, Pack, inout [String: JSONValue]) throws -> Void
    ) throws {
        try writePacks { batch in
            let db = batch.database
            guard let pack = try Self.packs(db).first(where: { $0.id == id }) else {
                throw StoreError.regionNotFound(id)
            }
            var fields = PackDescription.fields(of: pack.description)
            try change(db, pack, &fields)
            try Self.storeDescription(fields, of: id, db)
        }
    }

    private static func storeDescription(_ fields: [String: JSONValue], of id: RegionID, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE regions SET description = ? WHERE id = ?",
            arguments: [PackDescription.encode(fields), id.rawValue])
    }

    /// Throws when a pack has `name`, or a name that differs from it only in normalisation.
    static func requireFree(_ name: String, _ db: Database) throws {
        // `==` is canonical equivalence: it finds the byte-identical name and its twins alike.
        guard let existing = try packs(db).first(where: { $0.name == name }) else { return }
        if PackName.same(existing.name, name) { throw StoreError.duplicatePackName(name) }
        throw StoreError.normalisationTwin(name, existing: existing.name)
    }

    /// Returns free pages to the file system (the database is `auto_vacuum = INCREMENTAL`).
    public func incrementalVacuum() throws {
        try wrap {
            try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA incremental_vacuum") }
        }
    }
}
