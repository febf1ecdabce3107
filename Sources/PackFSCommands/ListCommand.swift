import ArgumentParser
import Basics
import PackStore

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the packs with their state and progress.")

    @OptionGroup var db: DatabaseOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let database = try db.openForReading()
        defer { try? database.close() }
        let rows = try database.packs().map { ($0, try database.progress(of: $0.id)) }
        if output.json {
            printJSON(.array(rows.map { PackReport(pack: $0.0, progress: $0.1).json }))
            return
        }
        print(Column.pad("NAME", 24) + Column.pad("STATE", 10) + Column.pad("TILES", 16) + Column.pad("RESOURCES", 16) + "SIZE")
        for (pack, progress) in rows {
            let counted = progress.counted
            let tiles = "\(counted ? "\(progress.counts.tiles)" : "?")/\(progress.requiredTiles)"
            let resources = "\(counted ? "\(progress.completedResources)" : "?")/\(progress.requiredResources)"
            print(Column.fit(pack.name, 24) + Column.pad(progress.status.state.rawValue, 10) + Column.pad(tiles, 16)
                + Column.pad(resources, 16) + (counted ? humanBytes(progress.completedBytes) : "?"))
        }
        if rows.contains(where: { !$0.1.counted }) { print("?: \(notCountedYet)") }
    }
}

/// What a command says of figures a database does not keep yet (an app filled it): a read-only
/// command never counts them itself, which would take as long as the packs are large.
let notCountedYet = "not counted yet (an app wrote this database); a mount counts them once, in the background"

/// A pack as the commands print it: name, id, definition, metadata and MapLibre's progress.
struct PackReport {
    var pack: Pack
    var progress: PackProgress

    var json: JSONValue {
        var fields = progress.json.object ?? [:]
        fields["name"] = .string(pack.name)
        fields["id"] = .number(Double(pack.id.rawValue))
        fields["definition"] = JSONValue.parse(Data(pack.definitionText.utf8)) ?? .string(pack.definitionText)
        fields["metadata"] = pack.metadata ?? .null
        return .object(fields)
    }
}

import FoundationEssentials
