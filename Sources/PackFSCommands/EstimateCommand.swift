import ArgumentParser
import Downloader
import FoundationEssentials
import PackStore

struct EstimateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "estimate",
        abstract: "Count the tiles and resources a region needs, and estimate their bytes, before downloading.",
        discussion: """
            Fetches the style and TileJSONs (nothing is stored). Tile counts are exact, per source and \
            zoom. Bytes come from tiles and resources of the same sources the database holds (--db), \
            else from a handful of samples fetched from the server (--samples); zooms in between are \
            interpolated. Every figure says what it rests on.
            """)

    @Argument(help: "The region file.") var region: String
    @Option(help: "An offline database whose tiles and resources of the same sources give sizes (opened read-only).")
    var db: String?
    @Option(help: "Tiles fetched from the server at most to measure sizes the database does not know (0: none).")
    var samples = Estimate.defaultTileSamples
    @OptionGroup var network: NetworkOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (0...64).contains(samples) else { throw ValidationError("--samples must be 0 to 64") }
    }

    func run() throws {
        let file = try readRegionFile(region)
        let database = try db.map { try OfflineDatabase.open(path: $0, mode: .readOnly) }
        defer { try? database?.close() }
        let estimate = try Estimate.make(
            for: file.definition, options: network.downloadOptions, database: database, tileSamples: samples)
        if output.json {
            var fields = estimate.json.object ?? [:]
            fields["requests"] = .number(Double(estimate.requests))
            printJSON(.object(fields))
            return
        }
        for source in estimate.sources { print(EstimateTable.source(source)) }
        print(EstimateTable.resources(estimate.resourceGroups))
        print(EstimateTable.total(estimate))
    }
}
