import FoundationEssentials

/// Every failure PackStore reports. Each case names what failed and where, so that a one-line
/// message (`description`) is enough for a user to act on.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    case fileNotFound(path: String)
    /// The file cannot be opened or read as a file: a directory, no permission, a read-only disk.
    case cannotOpen(path: String, reason: String)
    case notSQLite(path: String)
    case notOfflineDatabase(path: String, missing: [String])
    case unsupportedSchemaVersion(path: String, version: Int)
    case corrupt(path: String, detail: String)
    /// A dead process's unfinished transaction (a hot journal), which a read-only open cannot roll back.
    case interruptedTransaction(path: String)
    case inUse(path: String)
    /// The database's file was deleted or replaced while a mount held it open (`FileIdentity`).
    case fileGone(String)
    /// SQLite's SQLITE_FULL: the disk holding the database is full; the change was rolled back.
    case diskFull(path: String)
    /// A session closed without folding its write-ahead log back into the file (a full disk).
    case walLeft(path: String)
    case invalidPackName(String, reason: String)
    case duplicatePackName(String)
    /// A new name whose bytes differ from an existing pack's name only in Unicode normalisation.
    case normalisationTwin(String, existing: String)
    case packNotFound(String)
    case regionNotFound(RegionID)
    case invalidDefinition(field: String, reason: String)
    case invalidData(String)
    /// A resource preloaded into the ambient cache that is larger than the cache's limit.
    case overAmbientLimit(url: String, bytes: Int, limit: Int64)
    case sqlite(String)
    /// A file kept beside the database (`SpoolFile`) that could not be created or written.
    case spoolFailed(path: String, action: String, reason: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path): "\(path): no such offline database"
        case .spoolFailed(let path, let action, let reason): "cannot \(action) \(path): \(reason)"
        case .cannotOpen(let path, let reason): "\(path): \(reason)"
        case .notSQLite(let path): "\(path) is not an SQLite database; it was left untouched"
        case .notOfflineDatabase(let path, let missing):
            "\(path) is an SQLite database but not an offline database (no table "
                + missing.joined(separator: ", ") + "); it was left untouched"
        case .unsupportedSchemaVersion(let path, let version):
            "\(path) has offline schema version \(version); PackFS reads versions 2 to 6; it was left untouched"
        case .corrupt(let path, let detail): "\(path) is damaged (\(detail)); it was left untouched"
        case .interruptedTransaction(let path):
            "\(path) holds a transaction a process left unfinished when it died; any command that"
                + " changes the database (mount, download, remove) rolls it back"
        case .fileGone(let problem): problem
        case .diskFull(let path):
            "\(path): the disk is full (database or disk is full); nothing of this change was stored"
        case .walLeft(let path):
            "\(path): could not be made one file again (is its disk full?): its last changes are safe in"
                + " \(path)-wal, beside it, which the next open applies; keep the two files together"
        case .inUse(let path): "\(path) is in use by another PackFS process (mounted or downloading)"
        case .invalidPackName(let name, let reason): "invalid pack name \"\(name)\": \(reason)"
        case .duplicatePackName(let name): "a pack named \"\(name)\" already exists"
        case .normalisationTwin(let name, let existing):
            "a pack named \"\(existing)\" already exists: \"\(name)\" differs from it only in Unicode"
                + " normalisation (NFC and NFD), and two such names would look alike"
        case .packNotFound(let name): "no pack named \"\(name)\""
        case .regionNotFound(let id): "no region with id \(id.rawValue)"
        case .invalidDefinition(let field, let reason): "\(field): \(reason)"
        case .invalidData(let detail): "invalid stored data: \(detail)"
        case .overAmbientLimit(let url, let bytes, let limit):
            "\(url): \(bytes) bytes stored, over the ambient cache's limit of \(limit) bytes"
                + " (`packfs cache DB limit BYTES` raises it)"
        case .sqlite(let detail): "database error: \(detail)"
        }
    }
}
