import ArgumentParser
import Basics
import FoundationEssentials
import Interchange
import PackStore

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Merge another offline database, or add an MBTiles or PMTiles file as a pack.",
        discussion: """
            An offline database (MapLibre Native's or the Mapbox SDK's legacy format) is merged \
            as MapLibre's mergeOfflineRegions does: all or nothing, resources stored once, packs \
            renamed where their names are taken; the file itself is never changed. An MBTiles or \
            PMTiles file becomes one pack named by --name (default: the file's name); an MBTiles \
            file whose agg_tiles_hash disagrees with its tiles is refused, nothing written. The \
            new pack's hash is recorded (packfs verify checks it).
            """)

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The file to import.") var file: String
    @Option(help: "The new pack's name (MBTiles and PMTiles).") var name: String?
    @Flag(help: "Import an MBTiles file whose agg_tiles_hash disagrees with its tiles (refused otherwise).")
    var acceptHashMismatch = false
    @Option(name: .customLong("max-tiles"), help: "Tiles in the whole database at most (an offline database's merge).")
    var maxTiles: Int?
    @OptionGroup var dbMode: DatabaseModeOptions
    @OptionGroup var output: OutputOptions

    /// The file is judged before the database is opened: none is created for a file that cannot be imported.
    func run() throws {
        let source = try importing()
        let database = try db.openForChange(creating: true, fileMode: try dbMode.fileMode())
        defer { try? database.close() }
        output.print(try source.write(into: database))
    }

    private func importing() throws -> any PackImport {
        switch try ImportFormat(path: file) {
        case .offlineDatabase:
            if let maxTiles, maxTiles < 0 { throw ValidationError("--max-tiles must not be negative") }
            return try DatabaseMerge(path: file, options: MergeOptions(maxTiles: maxTiles))
        case .mbtiles: return try MBTilesImport(path: file, name: name, acceptHashMismatch: acceptHashMismatch)
        case .pmtiles: return try PMTilesImport(path: file, name: name)
        }
    }
}

/// What a file to import is, by its first bytes and, for SQLite, its tables.
enum ImportFormat {
    case offlineDatabase, mbtiles, pmtiles

    init(path: String) throws {
        guard let handle = try? PosixFile(path: path, access: .read) else {
            throw CommandFailure("cannot read \(path)")
        }
        let head = (try? handle.read(upTo: 16)) ?? Data()
        if head.starts(with: Array("PMTiles".utf8)) {
            self = .pmtiles
        } else if head.starts(with: Array("SQLite format 3".utf8)) {
            self = path.lowercased().hasSuffix(".mbtiles") ? .mbtiles : .offlineDatabase
        } else {
            throw CommandFailure("\(path) is neither an SQLite file (offline database, MBTiles) nor PMTiles")
        }
    }
}
