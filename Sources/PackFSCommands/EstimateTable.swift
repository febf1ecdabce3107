import Basics
import Downloader
import PackStore

/// `packfs estimate` for people: a table per source (zoom, tiles, bytes, how the bytes are
/// known), the resources by group, a total line.
enum EstimateTable {
    static func source(_ source: Estimate.Source) -> String {
        var lines = ["source \(source.id)  \(source.urlTemplate)"]
        guard !source.perZoom.isEmpty else { return lines[0] + "\n  no zooms in range" }
        lines.append(row("zoom", "tiles", "bytes", "how"))
        for zoom in source.perZoom {
            lines.append(row(
                "\(zoom.zoom)", "\(zoom.tiles)", zoom.bytes.map(humanBytes) ?? "?", describe(zoom.basis, tiles: zoom.tiles)))
        }
        let unknown = source.unknownTiles > 0 ? plural(source.unknownTiles, "tile") + " of unknown size" : ""
        lines.append(row("all", "\(source.tiles)", bytes(source.bytes, unknown: source.unknownTiles), unknown))
        return lines.joined(separator: "\n") + "\n"
    }

    static func resources(_ groups: [ResourceTally]) -> String {
        var lines = ["resources", row("group", "count", "bytes", "how")]
        for group in groups {
            lines.append(row(group.group.rawValue, "\(group.count)", bytes(group.bytes, unknown: group.unknown), describe(group)))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func total(_ estimate: Estimate) -> String {
        let line = "total: \(estimate.tiles) tiles and \(estimate.resources) resources "
            + "(\(estimate.tiles + estimate.resources) to download), "
        let size = sizes(known: estimate.bytes, tiles: estimate.unknownTiles, resources: estimate.unknownResources)
        return line + size + "\nrequests: \(estimate.requests)"
    }

    /// One line from a recorded estimate (`progress.json`'s): counts, bytes, what is unknown.
    static func summary(_ estimate: JSONValue) -> String {
        func count(_ key: String) -> Int { estimate[key]?.number.map { Int(exactly: $0.rounded()) ?? 0 } ?? 0 }
        let known = Int64(count(estimate["known_bytes"] == nil ? "bytes" : "known_bytes"))
        return "\(count("tiles")) tiles and \(count("resources")) resources, "
            + sizes(known: known, tiles: count("unknown_tiles"), resources: count("unknown_resources"))
    }

    /// "about 1.2 MiB [plus 3 tiles of unknown size]" or "size unknown": an unknown is never a number.
    private static func sizes(known: Int64, tiles: Int, resources: Int) -> String {
        let unknown = unknownSizes(tiles: tiles, resources: resources)
        if known == 0 && !unknown.isEmpty { return "size unknown (" + unknown.dropFirst(" plus ".count) + ")" }
        return "about \(humanBytes(known))" + unknown
    }

    /// A byte figure for a table cell: "?" when nothing of it is known, ">= X" when part is.
    private static func bytes(_ known: Int64, unknown: Int) -> String {
        guard unknown > 0 else { return humanBytes(known) }
        return known == 0 ? "?" : ">= " + humanBytes(known)
    }

    static func describe(_ basis: ByteBasis, tiles: Int) -> String {
        switch basis {
        case .stored(let count): return "from " + plural(count, "stored tile")
        case .sampled(let count): return "from " + plural(count, "sampled tile")
        case .interpolated(let low, let high): return "interpolated from z\(low) and z\(high)"
        case .extrapolated(let zoom): return "as z\(zoom)"
        case .unknown: return tiles == 0 ? "" : "unknown"
        }
    }

    static func describe(_ group: ResourceTally) -> String {
        let parts = [
            (group.fetched, "fetched"), (group.stored, "stored"), (group.sampled, "sampled"),
            (group.estimated, "estimated from those"), (group.unknown, "unknown"),
        ]
        return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }

    /// " plus 3 tiles and 2 resources of unknown size", or nothing.
    private static func unknownSizes(tiles: Int, resources: Int) -> String {
        let parts = [(tiles, "tile"), (resources, "resource")].filter { $0.0 > 0 }.map { plural($0.0, $0.1) }
        return parts.isEmpty ? "" : " plus \(parts.joined(separator: " and ")) of unknown size"
    }

    private static func row(_ a: String, _ b: String, _ c: String, _ d: String) -> String {
        "  " + pad(a, 9, left: true) + pad(b, 10) + pad(c, 12) + "  " + d
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let space = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + space : space + text
    }
}

/// "1 tile", "2 tiles".
func plural(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)" + (count == 1 ? "" : "s")
}
