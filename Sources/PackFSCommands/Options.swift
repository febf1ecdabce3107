import ArgumentParser
import FoundationEssentials
import Interchange
import PackStore

/// The database file every command works on.
struct DatabaseOptions: ParsableArguments {
    @Argument(help: "The offline database file (MapLibre Native's format).")
    var database: String

    /// Opens for reading: no lock, no change to the file.
    func openForReading() throws -> OfflineDatabase {
        try OfflineDatabase.open(path: database, mode: .readOnly)
    }

    /// Opens for a long session (mount): WAL, exclusive; created when absent.
    func openForSession() throws -> OfflineDatabase {
        try OfflineDatabase.open(path: database, mode: .session)
    }

    /// Opens for `download` (`creating`) and `refresh`: exclusive, in the file's journal
    /// mode (DELETE, MapLibre's, for a file PackFS made). Nothing here needs WAL's concurrent
    /// readers, and WAL writes every page twice (log, then checkpoint, then a last checkpoint
    /// at close): DELETE took 7% off the benchmark download's CPU.
    func openForDownload(creating: Bool) throws -> OfflineDatabase {
        try OfflineDatabase.open(path: database, mode: .command, creating: creating)
    }

    /// Opens for a change: refused while another PackFS process holds the database. Only
    /// `import` creates an absent file: every other command says it does not exist.
    func openForChange(creating: Bool = false) throws -> OfflineDatabase {
        try OfflineDatabase.open(path: database, mode: .command, creating: creating)
    }
}

/// `--json` for commands that print data.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// What an export or import did: its lines, or its JSON.
    func print(_ summary: any InterchangeSummary) {
        if json {
            printJSON(summary.json)
        } else {
            summary.lines.forEach { Swift.print($0) }
        }
    }
}

/// Writes a JSON value to stdout on one line.
func printJSON(_ value: JSONValue) {
    print(value.compactText)
}
