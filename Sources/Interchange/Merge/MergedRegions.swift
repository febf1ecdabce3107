import FoundationEssentials
import PackStore
import SQLiteDB

/// A pack of the side file with the state PackFS recorded for it there (nil for an app's pack: inactive).
struct SidePack {
    var pack: Pack
    var status: PackStatus?
}

/// Where a side pack went: the target pack it is now, and whether the merge added it.
struct MergedRegion {
    var side: SidePack
    var target: RegionID
    var added: Bool
}

/// The side's packs into the target, each found there already or added, and the side-to-target region ids
/// (`MergeSQL.regionMap`). "Already there": the same definition text and description bytes (MapLibre's rule),
/// or the pack an earlier merge added under a suffixed name (`name-2`): merging one file twice adds nothing.
struct MergedRegions {
    private let batch: StoreBatch
    private let db: Database
    /// The target's packs as they stand, including those added so far.
    private var targets: [Pack]

    static func merge(_ packs: [SidePack], _ batch: StoreBatch, _ db: Database) throws -> [MergedRegion] {
        try db.execute(sql: "CREATE TABLE \(MergeSQL.regionMap) (side_id INTEGER PRIMARY KEY, target_id INTEGER NOT NULL)")
        var regions = MergedRegions(batch: batch, db: db, targets: try batch.packs())
        return try packs.map { side in
            let found = try regions.existing(side.pack)
            let target = try found ?? regions.add(side)
            try db.execute(
                sql: "INSERT INTO \(MergeSQL.regionMap) (side_id, target_id) VALUES (?, ?)",
                arguments: [side.pack.id.rawValue, target.rawValue])
            return MergedRegion(side: side, target: target, added: found == nil)
        }
    }

    static func dropMapping(_ db: Database) throws {
        try db.execute(sql: "DROP TABLE \(MergeSQL.regionMap)")
    }

    private func existing(_ side: Pack) throws -> RegionID? {
        let sameDefinition = try Int64.fetchAll(db, sql: """
            SELECT r.id FROM main.regions r JOIN side.regions s ON s.id = ? AND r.definition = s.definition
            ORDER BY r.id
            """, arguments: [side.id.rawValue])
        let candidates = targets.filter { sameDefinition.contains($0.id.rawValue) }
        if let same = candidates.first(where: { $0.description == side.description }) { return same.id }
        guard let base = side.storedName else { return nil }
        return candidates.first { candidate in
            MergeNames.isSuffixed(candidate.name, of: base)
                && candidate.description == Pack.description(side.description, renamedTo: candidate.name)
        }?.id
    }

    /// Inserts the side's region row as stored, but for the JSON `name` when taken (an app's description without a name
    /// is never rewritten: it shows as `region-<id>` under its new id).
    private mutating func add(_ side: SidePack) throws -> RegionID {
        let name = side.pack.storedName.map { MergeNames.free($0, taken: targets.map(\.name)) }
        var renamed: Data?
        if let name, let stored = side.pack.storedName, !PackName.same(name, stored) {
            renamed = Pack.description(side.pack.description, renamedTo: name)
        }
        try db.execute(sql: """
            INSERT INTO main.regions (definition, description)
            SELECT definition, COALESCE(?, description) FROM side.regions WHERE id = ?
            """, arguments: [renamed, side.pack.id.rawValue])
        let id = RegionID(rawValue: db.lastInsertedRowID)
        if let status = side.status { try batch.setStatus(status, of: id) }
        var added = side.pack
        added.id = id
        added.name = name ?? "region-\(id.rawValue)"
        added.description = renamed ?? side.pack.description
        targets.append(added)
        return id
    }
}
