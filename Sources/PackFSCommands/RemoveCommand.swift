import ArgumentParser
import PackStore

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a pack (as `rm packs/NAME.region` on the mount).",
        discussion: """
            Resources shared with other packs stay for them; the rest become ambient cache, which \
            is trimmed to its limit, and the freed pages are returned to the file system.
            """)

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String

    func run() throws {
        let database = try db.openForChange()
        defer { try? database.close() }
        try database.removePack(try database.pack(named: name).id)
    }
}
