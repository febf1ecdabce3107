import ArgumentParser
import Downloader
import PackStore

struct EstimateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "estimate",
        abstract: "Count the tiles and resources a region needs, before downloading.",
        discussion: "Fetches the style and TileJSONs (nothing is stored).")

    @Argument(help: "The region file.") var region: String
    @OptionGroup var network: NetworkOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let file = try readRegionFile(region)
        let estimate = try Estimate.make(for: file.definition, options: network.downloadOptions)
        if output.json {
            printJSON(.object([
                "tiles": .number(Double(estimate.tiles)), "resources": .number(Double(estimate.resources)),
                "required_resources": .number(Double(estimate.resources + estimate.tiles)),
                "sources": .array(estimate.sources.map { source in
                    .object([
                        "id": .string(source.id), "tiles": .number(Double(source.tiles)),
                        "minzoom": source.zooms.map { .number(Double($0.lowerBound)) } ?? .null,
                        "maxzoom": source.zooms.map { .number(Double($0.upperBound)) } ?? .null,
                    ])
                }),
            ]))
            return
        }
        for source in estimate.sources {
            let zooms = source.zooms.map { "z\($0.lowerBound)-\($0.upperBound)" } ?? "no zooms"
            print("source \(source.id): \(source.tiles) tiles (\(zooms))")
        }
        print("tiles: \(estimate.tiles)")
        print("resources: \(estimate.resources) (style, TileJSON, sprites, glyphs)")
        print("required resources: \(estimate.resources + estimate.tiles)")
    }
}
