import ArgumentParser
import Basics
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

    /// Opens for a mount: WAL, exclusive; created when absent, with `fileMode`.
    func openForSession(fileMode: UInt32) throws -> OfflineDatabase {
        try OfflineDatabase.open(path: database, mode: .mount, fileMode: fileMode)
    }

    /// Opens for a change: exclusive, in the file's own journal mode (WAL would write each page twice
    /// for no concurrent reader). Only `download` and `import` create an absent file.
    func openForChange(creating: Bool = false, fileMode: UInt32 = OfflineDatabase.defaultFileMode) throws -> OfflineDatabase {
        try OfflineDatabase.open(path: database, mode: .command, creating: creating, fileMode: fileMode)
    }
}

/// `--db-mode` of the commands that create a database (mount, download, import, reset).
struct DatabaseModeOptions: ParsableArguments {
    @Option(name: .customLong("db-mode"), help: ArgumentHelp(
        "The permission bits of a database this creates, in octal (default 0600: only its owner reads it; 0640 for a group). An existing file keeps its mode.",
        valueName: "MODE"))
    var dbMode: String?

    func validate() throws { _ = try fileMode() }

    func fileMode() throws -> UInt32 {
        try dbMode.map { try Self.parse($0, spelled: "--db-mode \($0)") } ?? OfflineDatabase.defaultFileMode
    }

    /// An octal mode (`0640`, `640`): owner read-write, permission bits only.
    static func parse(_ text: String, spelled: String) throws -> UInt32 {
        guard !text.isEmpty, text.count <= 4, text.allSatisfy({ ("0"..."7").contains($0) }),
            let mode = UInt32(text, radix: 8), mode & 0o600 == 0o600
        else { throw ValidationError("\(spelled): an octal mode in which the owner reads and writes, such as 0600 or 0640") }
        return mode
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
            summary.lines.forEach { PackFSCommands.print($0) }
        }
    }
}

/// Writes a JSON value to stdout on one line.
func printJSON(_ value: JSONValue) {
    print(value.compactText)
}
