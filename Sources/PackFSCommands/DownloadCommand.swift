import ArgumentParser
import Downloader
import FoundationEssentials
import PackLifecycle
import PackStore
import StyleModel

struct DownloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a pack without mounting (creates it, resumes it, or converges it to a changed region).",
        discussion: "Ctrl-C suspends the download; running the command again resumes it.")

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String
    @Argument(help: "The region file (JSON: style, bounds or geometry, minzoom, maxzoom).") var region: String
    @OptionGroup var dbMode: DatabaseModeOptions
    @OptionGroup var network: NetworkOptions

    func run() throws {
        let file = try readRegionFile(region)
        try PackName.validate(name)
        let database = try db.openForChange(creating: true, fileMode: try dbMode.fileMode())
        defer { try? database.close() }
        let pack = try database.definePack(
            name: name, definition: file.definition, metadata: file.metadata, tileStorage: file.tileStorage)
        let download = PackDownload(
            database: database, region: pack.id, definition: file.definition, options: network.downloadOptions)
        try finish(ProgressReporter.run(download, name: name), database: database)
    }
}

struct RefreshCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Revalidate every resource of a pack with conditional requests; store only what changed.")

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String
    @OptionGroup var network: NetworkOptions

    func run() throws {
        let database = try db.openForChange()
        defer { try? database.close() }
        let pack = try database.pack(named: name)
        guard let definition = pack.definition else {
            throw CommandFailure("pack \(name): its definition cannot be read: \(pack.definitionText)")
        }
        guard !ImportedFiles.isImported(definition.styleURL) else {
            throw CommandFailure(LifecycleError.imported(name: name).description)
        }
        let download = PackDownload(
            database: database, region: pack.id, definition: definition, options: network.downloadOptions,
            mode: .refresh)
        try finish(ProgressReporter.run(download, name: name), database: database)
    }
}

/// Exit status from a pack's final state: complete 0, otherwise a one-line failure. A complete
/// pack's hash is computed before the command exits (the pack already says `complete`).
func finish(_ status: PackStatus, database: OfflineDatabase) throws {
    if status.state == .complete { PackHasher.settle(database) }
    try finish(status)
}

/// Exit status from a pack's final state: complete 0, otherwise a one-line failure.
func finish(_ status: PackStatus) throws {
    switch status.state {
    case .complete: return
    case .error: throw CommandFailure(status.error ?? "download failed")
    case .inactive, .active: throw CommandFailure("suspended; run the command again to resume")
    }
}
