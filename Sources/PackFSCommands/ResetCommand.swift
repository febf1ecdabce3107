import ArgumentParser
import PackStore

struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete every pack and all cached data; leaves a fresh offline database.",
        discussion: """
            Creates the database when the file does not exist. A file that is not an offline \
            database is refused and left untouched.
            """)

    @OptionGroup var db: DatabaseOptions
    @OptionGroup var dbMode: DatabaseModeOptions

    func run() throws {
        try OfflineDatabase.reset(path: db.database, fileMode: try dbMode.fileMode())
    }
}
