import ArgumentParser
import Interchange
import PackStore

/// `packfs import DB FILE` with another offline database: `DatabaseMerge` does the work; this
/// prints what it did.
extension ImportCommand {
    func mergeDatabase() throws {
        if let maxTiles, maxTiles < 0 { throw ValidationError("--max-tiles must not be negative") }
        let database = try db.openForChange()
        defer { try? database.close() }
        let report = try DatabaseMerge.merge(file, into: database, options: MergeOptions(maxTiles: maxTiles))
        if output.json {
            printJSON(report.json)
        } else {
            report.lines.forEach { print($0) }
        }
    }
}
