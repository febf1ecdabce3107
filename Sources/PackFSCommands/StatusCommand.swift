import ArgumentParser
import Basics
import FoundationEssentials
import PackStore
import StyleModel

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show one pack's state, progress and definition.")

    @OptionGroup var db: DatabaseOptions
    @Argument(help: "The pack's name.") var name: String
    @OptionGroup var output: OutputOptions
    @Flag(help: "Print the pack's coverage.geojson: the union of its tiles per zoom, as GeoJSON.")
    var coverage = false

    func run() throws {
        let database = try db.openForReading()
        defer { try? database.close() }
        let pack = try database.pack(named: name)
        if coverage {
            // As the mount serves it; the style only once the pack is counted (see PackFS).
            let style = try database.coverageCounted(pack.id) ? try PackStyle.load(pack, from: database) : nil
            do {
                try PosixFile.standardOutput.write(try database.coverage(of: pack.id, primary: style?.primarySource))
            } catch let error as SystemError {
                throw CommandFailure("standard output: \(error)")
            }
            return
        }
        let progress = try database.progress(of: pack.id)
        let disk = try database.diskUsage()
        let ambient = try database.ambientUsage()
        if output.json {
            var report = PackReport(pack: pack, progress: progress).json.object ?? [:]
            report["database"] = .object([
                "file_bytes": .number(Double(disk.fileBytes)), "used_bytes": .number(Double(disk.usedBytes)),
                "free_bytes": .number(Double(disk.freeBytes)), "ambient_bytes": ambient.map { .number(Double($0.bytes)) } ?? .null,
                "ambient_limit": .number(Double(try database.ambientLimit())),
            ])
            printJSON(.object(report))
            return
        }
        print("name:       \(pack.name)")
        print("state:      \(progress.status.state.rawValue)")
        if let error = progress.status.error { print("error:      \(error)") }
        let counted = progress.counted
        print("tiles:      \(counted ? "\(progress.counts.tiles)" : "?") of \(progress.requiredTiles)"
            + (counted ? " (\(humanBytes(progress.counts.tileBytes)))" : ""))
        print("resources:  \(counted ? "\(progress.completedResources)" : "?") of \(progress.requiredResources)"
            + (progress.status.requiredIsPrecise ? "" : " (estimate)") + (counted ? " (\(humanBytes(progress.completedBytes)))" : ""))
        if !counted { print("counts:     \(notCountedYet)") }
        if let estimate = progress.estimate { print("estimate:   \(EstimateTable.summary(estimate))") }
        print("definition: \(pack.definitionText)")
        if let metadata = pack.metadata { print("metadata:   \(metadata.compactText)") }
        print("database:   \(humanBytes(disk.usedBytes)) in use of a \(humanBytes(disk.fileBytes)) file"
            + " (\(humanBytes(disk.freeBytes)) free; ambient cache \(ambient.map { humanBytes($0.bytes) } ?? "?")"
            + " of \(humanBytes(try database.ambientLimit())))")
    }
}
