import ArgumentParser
import FoundationEssentials
import Interchange
import ObjectStorage
import PackStore

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a pack to MBTiles, PMTiles or a directory a web server serves.",
        discussion: """
            OUT ending in .mbtiles: MBTiles 1.3; in .pmtiles: PMTiles v3 (one file per tiled \
            source, OUT.<source>.<ext>, when the pack has several and no --source is given); \
            ending in / or naming a directory: a z/x/y tree per source with style.json, glyphs \
            and sprites. OUT s3://bucket/key.pmtiles (or .mbtiles): the same files, exported to a \
            staging directory and uploaded to S3 or an S3-compatible store with a multipart upload \
            (aborted if it fails), signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and \
            AWS_SESSION_TOKEN), at AWS_REGION and AWS_ENDPOINT_URL unless --region and --endpoint \
            say otherwise.
            """)

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String
    @Argument(help: "The file or directory to write, or s3://bucket/key.pmtiles (.mbtiles) to upload.") var out: String
    @Option(help: "Export only this tiled source (its id in the pack's style).") var source: String?
    @Option(help: "Directory export: absolute URLs under this base instead of relative ones.")
    var baseURL: String?
    @OptionGroup(title: "Export to S3") var objectStorage: ObjectStorageOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        _ = try objectStorage.upload(for: out, environment: ProcessInfo.processInfo.environment)
    }

    func run() throws {
        let upload = try objectStorage.upload(for: out, environment: ProcessInfo.processInfo.environment)
        let database = try db.openForReading()
        defer { try? database.close() }
        let pack = try database.pack(named: name)
        guard let upload else { return output.print(try export(pack, database).write(to: out)) }
        output.print(try upload.run { staged in try export(pack, database).write(to: staged) })
    }

    /// The export OUT asks for.
    private func export(_ pack: Pack, _ database: OfflineDatabase) throws -> any PackExport {
        switch ExportFormat(path: out) {
        case .mbtiles: return MBTilesExport(database: database, pack: pack, source: source)
        case .pmtiles: return PMTilesExport(database: database, pack: pack, source: source)
        case .directory:
            guard source == nil else {
                throw ValidationError("--source applies to .mbtiles and .pmtiles: a directory holds every source of the pack")
            }
            do {
                return try DirectoryExport(database: database, pack: pack, baseURL: baseURL)
            } catch let error as InterchangeError {
                throw ValidationError(error.description)  // a --base-url that is no base URL: bad usage
            }
        }
    }
}

/// The format an OUT path asks for.
enum ExportFormat {
    case mbtiles, pmtiles, directory

    init(path: String) {
        let lower = path.lowercased()
        self = lower.hasSuffix(".mbtiles") ? .mbtiles : lower.hasSuffix(".pmtiles") ? .pmtiles : .directory
    }
}
