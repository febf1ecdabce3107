import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Exports are written out of sight and renamed into place at the end: a failed export never leaves a half-written file
/// or directory under the name asked for.
enum ExportPlacement {
    /// A hidden name beside `path` (`.<name>.<what>-<uuid>`): on the same file system, so the final rename is atomic.
    static func sibling(of path: String, _ what: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(what)-\(UUID().uuidString)").path
    }

    /// Renames `staging` onto `path`; the error names what moved (`naming`, else `staging`) and the target, and says
    /// why in `explain`'s words for an errno, else the system's.
    static func moveIntoPlace(
        _ staging: String, _ path: String, naming: String? = nil, explain: (Int32) -> String? = { _ in nil }
    ) throws {
        guard rename(staging, path) == 0 else {
            let code = errno
            let reason = explain(code) ?? String(cString: strerror(code))
            throw InterchangeError.cannotMove(naming ?? staging, to: path, reason: reason)
        }
    }

    /// Moves `staging` to `path` only when nothing is there: a hard link (failing on a taken name in one step), then
    /// unlinking `staging`. Without hard links, a check and a rename (a file made in between is replaced).
    static func moveIntoPlaceNew(_ staging: String, _ path: String) throws {
        guard link(staging, path) != 0 else {
            unlink(staging)
            return
        }
        let code = errno
        guard code != EEXIST else { throw InterchangeError.invalidDestination(path, reason: takenReason) }
        guard [EPERM, ENOTSUP, EOPNOTSUPP, EMLINK].contains(code) else {
            throw InterchangeError.cannotMove(staging, to: path, reason: String(cString: strerror(code)))
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw InterchangeError.invalidDestination(path, reason: takenReason)
        }
        try moveIntoPlace(staging, path)
    }

    /// Why a write that makes a new file refuses a taken name.
    static let takenReason = "it exists, and this writes a new file only (remove it or name another)"
}
