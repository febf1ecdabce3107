import Basics
import FoundationEssentials
import PackStore
import SQLiteDB

/// The file to merge, copied with its `-journal` or `-wal` (pages SQLite's recovery puts back) into a private temporary
/// directory: checks and migrations run on the copy, so the user's file is never written. (MapLibre attaches the file
/// itself and deletes what it cannot read.)
struct SideCopy {
    /// The user's file, as given.
    let original: String
    /// The copy that is checked, migrated and attached.
    let path: String
    private let directory: URL

    init(of original: String) throws {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: original, isDirectory: &isDirectory), !isDirectory else {
            throw InterchangeError.noSuchFile(original)
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("packfs-side-\(UUID().uuidString)")
        path = directory.appendingPathComponent("side.db").path
        self.original = original
        do {
            // Private: the copy holds another database's packs (docs/design.md §1).
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(atPath: original, toPath: path)
            for companion in ["-journal", "-wal"] where FileManager.default.fileExists(atPath: original + companion) {
                try FileManager.default.copyItem(atPath: original + companion, toPath: path + companion)
            }
        } catch {
            remove()
            throw InterchangeError.cannotWrite(original, action: "copy", reason: errorText(error))
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Opens the copy (migrated to version 6) and hands it to `body` once `quick_check` has read every page, so damage
    /// is found here, not halfway through the merge. Errors name the user's file, never the copy.
    func reading<T>(_ body: (OfflineDatabase) throws -> T) throws -> T {
        do {
            let side = try OfflineDatabase.openSide(path: path)
            defer { try? side.close() }
            try check(side)
            return try body(side)
        } catch let error as StoreError {
            let reason = error.description.replacing(path, with: original)
            throw InterchangeError.sideRefused(original, reason: reason)
        }
    }

    private func check(_ side: OfflineDatabase) throws {
        let problems: [String]
        do {
            problems = try side.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(5)") }
        } catch {
            throw StoreError.corrupt(path: side.path, detail: "\(error)")
        }
        guard problems == ["ok"] else {
            throw StoreError.corrupt(path: side.path, detail: problems.joined(separator: "; "))
        }
        try side.read { db in
            for (table, columns) in MergeSQL.columns {
                let present = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                let missing = columns.filter { !present.contains($0) }
                guard missing.isEmpty else {
                    throw InterchangeError.notInFormat(
                        original, format: "an offline database",
                        reason: "table \(table) has no column \(missing.joined(separator: ", ")); it was left untouched")
                }
            }
        }
    }
}
