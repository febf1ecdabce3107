import Basics
import Foundation
import PackStore
import SQLiteDB
import TestSupport

/// What a database file held at a moment (right after a kill), read through a connection of the
/// test's own on a copy of the files: the original, hot journal or WAL included, is left for the
/// next `packfs` process to recover, as it would find it after a crash.
struct StoreSnapshot {
    var integrity: String
    var foreignKeyErrors: Int
    /// Every stored resource and tile ("no content" too), as the request path a server logs.
    var stored: Set<String>
    var packs: [String: PackSnapshot]

    struct PackSnapshot {
        var id: Int64
        var state: String?
        var members: Set<String>
        /// Members a pending refresh has revalidated (or stored) since it began, and what it
        /// staged (answered, waiting for its switch); nil when no refresh is pending.
        var refreshed: Set<String>?
        /// What it staged alone (nil when no refresh is pending).
        var staged: Set<String>?
        /// Every member's content as a renderer reads it (nil: "no content").
        var contents: [String: Data?]
        /// The recorded hash of each tile template.
        var hashes: [String: String]
    }

    /// Copies `db` and its journal, WAL and shared-memory files to `copy` (a path in the test's
    /// directory), opens the copy and reads it; the copy goes after. `base` is the server's base
    /// URL, stripped from stored URLs.
    static func take(db: String, base: String, copy: String) throws -> StoreSnapshot {
        let suffixes = ["", "-journal", "-wal", "-shm"]
        defer { for suffix in suffixes { try? FileManager.default.removeItem(atPath: copy + suffix) } }
        for suffix in suffixes where FileManager.default.fileExists(atPath: db + suffix) {
            try FileManager.default.copyItem(atPath: db + suffix, toPath: copy + suffix)
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let queue = try DatabaseQueue(path: copy, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try read(db, base: base) }
    }

    /// Reads `db` in place, read-only, while a daemon may be writing it (WAL: this reader waits
    /// for nobody and sees the last commit).
    static func read(db: String, base: String) throws -> StoreSnapshot {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: db, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try read(db, base: base) }
    }

    private static func read(_ db: Database, base: String) throws -> StoreSnapshot {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        let foreignKeyErrors = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
        var stored = Set(try String.fetchAll(db, sql: "SELECT url FROM resources").map { path($0, base) })
        for row in try Row.fetchAll(db, sql: "SELECT url_template, pixel_ratio, z, x, y FROM tiles") {
            stored.insert(tilePath(row, base))
        }
        var packs: [String: PackSnapshot] = [:]
        // A pack marked removed is gone (its rows go in the background: Removals.swift).
        let removed = try db.tableExists("packfs_removals") ? "WHERE id NOT IN (SELECT region_id FROM packfs_removals)" : ""
        for row in try Row.fetchAll(db, sql: "SELECT id, description FROM regions \(removed)") {
            let id: Int64 = row["id"]
            let name = packName(row["description"]) ?? "region-\(id)"
            packs[name] = try pack(id, db, base: base)
        }
        return StoreSnapshot(integrity: integrity, foreignKeyErrors: foreignKeyErrors, stored: stored, packs: packs)
    }

    private static func pack(_ id: Int64, _ db: Database, base: String) throws -> PackSnapshot {
        let hasState = try db.tableExists("packfs_pack_state")
        let state = hasState
            ? try String.fetchOne(db, sql: "SELECT state FROM packfs_pack_state WHERE region_id = ?", arguments: [id]) : nil
        let since = try db.tableExists("packfs_refresh")
            ? try Int64.fetchOne(db, sql: "SELECT since FROM packfs_refresh WHERE region_id = ?", arguments: [id]) : nil
        var members = Set<String>(), refreshed = Set<String>(), contents: [String: Data?] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT r.url, r.accessed, r.data, r.compressed FROM region_resources m JOIN resources r ON r.id = m.resource_id
            WHERE m.region_id = ?
            """, arguments: [id]) {
            members.insert(path(row["url"], base))
            contents[path(row["url"], base)] = try content(row)
            if let since, row["accessed"] >= since { refreshed.insert(path(row["url"], base)) }
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT t.url_template, t.pixel_ratio, t.z, t.x, t.y, t.accessed, t.data, t.compressed FROM region_tiles m
            JOIN tiles t ON t.id = m.tile_id WHERE m.region_id = ?
            """, arguments: [id]) {
            members.insert(tilePath(row, base))
            contents[tilePath(row, base)] = try content(row)
            if let since, row["accessed"] >= since { refreshed.insert(tilePath(row, base)) }
        }
        let staged = try since.map { try stagedPaths(id, since: $0, db, base: base) }
        return PackSnapshot(
            id: id, state: state, members: members, refreshed: since == nil ? nil : refreshed.union(staged ?? []),
            staged: staged, contents: contents, hashes: try hashes(id, db))
    }

    /// What the pending refresh (of `since`) staged for the pack (PackStore's Staging.swift).
    private static func stagedPaths(_ id: Int64, since: Int64, _ db: Database, base: String) throws -> Set<String> {
        guard try db.tableExists("packfs_staged_tiles") else { return [] }
        var paths = Set(try String.fetchAll(db, sql: "SELECT url FROM packfs_staged_resources WHERE region_id = ? AND since = ?",
                                            arguments: [id, since]).map { path($0, base) })
        for row in try Row.fetchAll(db, sql: """
            SELECT url_template, pixel_ratio, z, x, y FROM packfs_staged_tiles WHERE region_id = ? AND since = ?
            """, arguments: [id, since]) {
            paths.insert(tilePath(row, base))
        }
        return paths
    }

    private static func hashes(_ id: Int64, _ db: Database) throws -> [String: String] {
        guard try db.tableExists("packfs_pack_hashes") else { return [:] }
        var hashes: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT url_template, hash FROM packfs_pack_hashes WHERE region_id = ?", arguments: [id]) {
            hashes[row["url_template"]] = row["hash"]
        }
        return hashes
    }

    /// A row's content as a renderer reads it (inflated when stored compressed).
    private static func content(_ row: Row) throws -> Data? {
        guard let data: Data = row["data"] else { return nil }
        return row["compressed"] as Bool ? try Zlib.decompress(data) : data
    }

    static func path(_ url: String, _ base: String) -> String {
        url.hasPrefix(base) ? String(url.dropFirst(base.count)) : url
    }

    static func tilePath(_ row: Row, _ base: String) -> String {
        let template: String = row["url_template"]
        let ratio: Int = row["pixel_ratio"]
        let url = template.replacingOccurrences(of: "{z}", with: "\(row["z"] as Int)")
            .replacingOccurrences(of: "{x}", with: "\(row["x"] as Int)")
            .replacingOccurrences(of: "{y}", with: "\(row["y"] as Int)")
            .replacingOccurrences(of: "{ratio}", with: ratio > 1 ? "@\(ratio)x" : "")
        return path(url, base)
    }

    private static func packName(_ description: Data?) -> String? {
        guard let description, let object = try? JSONSerialization.jsonObject(with: description) as? [String: Any] else {
            return nil
        }
        return object["name"] as? String
    }
}
