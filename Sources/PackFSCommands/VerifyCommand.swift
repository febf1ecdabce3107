import ArgumentParser
import Basics
import FoundationEssentials
import PackLifecycle
import PackStore

#if canImport(Glibc)
    import Glibc
#endif

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a pack: its hash, its tiles and resources, its completeness.",
        discussion: """
            Per tiled source: the tile count and martin's agg_tiles_hash (of the tiles as the \
            MBTiles export holds them), which must equal the hash recorded when the pack last \
            became whole. Every stored tile and resource must inflate where it is marked \
            compressed, every vector tile parse as a protobuf with named layers, and every tile \
            the region's plan needs (made from the stored style and TileJSONs) be stored or \
            recorded as "no content". Exit 0 when all of that holds; else 1, one line per problem \
            (the first \(PackVerification.shownProblems), then a count). Only reads: it works \
            while the database is mounted.
            """)

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String
    @OptionGroup var output: OutputOptions

    func run() throws {
        let database = try db.openForReading()
        defer { try? database.close() }
        let pack = try database.pack(named: name)
        let bar = VerifyProgress(name: name, terminal: isatty(STDERR_FILENO) == 1)
        let report = try PackVerification(database: database, pack: pack).run(progress: bar.show)
        bar.end()
        if output.json {
            printJSON(VerifyReportText.json(report))
        } else {
            VerifyReportText.lines(report).forEach { print($0) }
        }
        guard report.isSound else {
            report.problems.forEach { StandardError.write("packfs: \($0)\n") }
            let more = report.problemCount - report.problems.count
            if more > 0 { StandardError.write("packfs: ... and \(more) more problems\n") }
            throw CommandFailure("pack \"\(name)\" failed verification: \(report.problemCount) problems")
        }
    }
}
