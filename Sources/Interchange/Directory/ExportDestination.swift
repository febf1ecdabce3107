import Basics
import FoundationEssentials
import PackStore
#if canImport(Glibc)
import Glibc
#endif

/// Where a directory export lands, and its staging: a hidden sibling (`ExportPlacement.sibling`) that becomes DIR once
/// every file is written; an export cut short leaves that sibling, never a partial DIR.
struct ExportDestination {
    /// DIR without a trailing `/`.
    let path: String

    init(path given: String) throws {
        var path = given
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard !path.isEmpty, path != "/", name != ".", name != ".." else {
            throw InterchangeError.invalidDestination(given, reason: "give a new directory's path to export to")
        }
        self.path = path
        let parent = url.deletingLastPathComponent().path
        try Self.refuseIfTaken(path, given: given)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw InterchangeError.invalidDestination(given, reason: "its parent directory \(parent) does not exist")
        }
    }

    /// An existing DIR is refused unless it is an empty directory, which the export replaces.
    private static func refuseIfTaken(_ path: String, given: String) throws {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        guard isDirectory else {
            throw InterchangeError.destinationTaken(given, entries: nil)
        }
        let entries = try FileManager.default.contentsOfDirectory(atPath: path)
        guard entries.isEmpty else {
            throw InterchangeError.destinationTaken(given, entries: entries.count)
        }
    }

    /// A fresh staging directory, with the user's umask (a web server must read what it holds).
    func makeStaging() throws -> String {
        let staging = ExportPlacement.sibling(of: path, "partial")
        do {
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        } catch {
            throw InterchangeError.cannotWrite(staging, action: "create", reason: errorText(error))
        }
        return staging
    }

    /// Puts the staging directory in DIR's place (replacing an empty DIR).
    func commit(_ staging: String) throws {
        try ExportPlacement.moveIntoPlace(staging, path, naming: "the export") { code in
            code == ENOTEMPTY || code == EEXIST ? "it was filled while the export ran" : nil
        }
    }

    func discard(_ staging: String) {
        try? FileManager.default.removeItem(atPath: staging)
    }
}
