import Basics
import PackStore

/// What a merge did: each side pack and the target pack it became (added or found), and each table's rows by outcome.
public struct MergeReport: InterchangeSummary, Equatable {
    public struct PackEntry: Equatable, Sendable {
        /// The name the pack shows in the side file.
        public var sideName: String
        /// Its name in the target database.
        public var name: String
        public var id: RegionID
        /// False when the target held it already (nothing was added for it).
        public var added: Bool
    }

    public struct RowCounts: Equatable, Sendable {
        /// Rows the target lacked.
        public var new = 0
        /// Rows the target held with older data, replaced in place.
        public var updated = 0
        /// Rows the target held already, kept as they were.
        public var present = 0
        /// Side rows whose key has the wrong type (never requested, never shown), left behind.
        public var skipped = 0
        /// Memberships added: (pack, row) pairs the target's packs did not hold yet.
        public var linked = 0
        /// Side rows no side pack holds (its ambient cache), left behind as MapLibre's merge leaves them.
        public var ambient = 0
    }

    /// The side file, as given.
    public var file: String
    public var packs: [PackEntry] = []
    public var tiles = RowCounts()
    public var resources = RowCounts()
    /// What trimming the ambient cache to its limit removed after the merge.
    public var evicted = EvictionReport()

    /// Lines for a person: one per pack, one per table.
    public var lines: [String] {
        var lines = packs.map { pack in
            let renamed = pack.name == pack.sideName ? "" : " (\"\(pack.sideName)\" in \(file))"
            return pack.added ? "added pack \"\(pack.name)\"\(renamed)" : "already present: pack \"\(pack.name)\"\(renamed)"
        }
        for (label, counts) in [("tiles", tiles), ("resources", resources)] {
            var line = "\(label): \(counts.new) new, \(counts.updated) newer than the stored ones, \(counts.present) already present"
            if counts.skipped > 0 { line += ", \(counts.skipped) skipped (keys of the wrong type)" }
            if counts.ambient > 0 { line += ", \(counts.ambient) left behind (the file's ambient cache)" }
            lines.append(line)
        }
        if evicted.tiles + evicted.resources > 0 {
            lines.append("ambient cache trimmed to its limit: \(evicted.tiles) tiles and \(evicted.resources) resources removed")
        }
        return lines
    }

    public var json: JSONValue {
        func number(_ value: Int) -> JSONValue { .number(Double(value)) }
        func rows(_ counts: RowCounts) -> JSONValue {
            .object([
                "new": number(counts.new), "updated": number(counts.updated), "present": number(counts.present),
                "skipped": number(counts.skipped), "linked": number(counts.linked), "ambient": number(counts.ambient),
            ])
        }
        return .object([
            "file": .string(file),
            "packs": .array(packs.map { pack in
                .object([
                    "name": .string(pack.name), "side_name": .string(pack.sideName),
                    "id": .number(Double(pack.id.rawValue)), "added": .bool(pack.added),
                ])
            }),
            "tiles": rows(tiles), "resources": rows(resources),
            "evicted": .object([
                "tiles": number(evicted.tiles), "resources": number(evicted.resources),
                "bytes": .number(Double(evicted.bytes)),
            ]),
        ])
    }
}
