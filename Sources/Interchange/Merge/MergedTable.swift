import SQLiteDB

/// One of the two tables a merge moves (tiles, resources) and its set-based SQL: rows newer in the side replace the
/// target's in place (ids kept), rows the target lacks are inserted, then each side pack's memberships are added to its
/// target pack (`INSERT OR IGNORE`). Only rows a side pack holds come, as in MapLibre's merge: the side's ambient cache
/// stays behind, counted as `ambient`.
struct MergedTable {
    let table: String
    let membership: String
    let memberColumn: String
    /// Aliases: the side's row and the target's.
    let side: String
    let target: String
    let keyColumns: [String]
    /// Columns copied besides the key.
    let valueColumns: [String]
    let sameRow: String
    let wellTyped: String

    static let tiles = MergedTable(
        table: "tiles", membership: "region_tiles", memberColumn: "tile_id", side: "st", target: "t",
        keyColumns: ["url_template", "pixel_ratio", "z", "x", "y"], valueColumns: MergeSQL.content,
        sameRow: MergeSQL.sameTile, wellTyped: MergeSQL.wellTypedTile)

    static let resources = MergedTable(
        table: "resources", membership: "region_resources", memberColumn: "resource_id", side: "sr", target: "r",
        keyColumns: ["url"], valueColumns: ["kind"] + MergeSQL.content,
        sameRow: MergeSQL.sameResource, wellTyped: MergeSQL.wellTypedResource)

    func merge(_ db: Database, now: Int64) throws -> MergeReport.RowCounts {
        var counts = MergeReport.RowCounts()
        let held = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM side.\(table) \(side) WHERE \(inSidePack)") ?? 0
        let all = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM side.\(table)") ?? 0
        let usable = try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM side.\(table) \(side) WHERE \(wellTyped) AND \(inSidePack)") ?? 0
        try db.execute(sql: updateSQL, arguments: [now])
        counts.updated = db.changesCount
        try db.execute(sql: insertSQL, arguments: [now])
        counts.new = db.changesCount
        try db.execute(sql: linkSQL)
        counts.linked = db.changesCount
        counts.present = max(0, usable - counts.new - counts.updated)
        counts.skipped = held - usable
        counts.ambient = all - held
        return counts
    }

    /// The side row is held by a side pack (through the side's membership index on its column).
    private var inSidePack: String {
        "EXISTS (SELECT 1 FROM side.\(membership) sm WHERE sm.\(memberColumn) = \(side).id)"
    }

    /// A side value for a target column: MapLibre's NOT NULL columns get their defaults when an
    /// app's file holds NULL there (`?` is now, for `accessed`).
    private func value(_ column: String) -> String {
        switch column {
        case "compressed", "must_revalidate": return "COALESCE(\(side).\(column), 0)"
        case "accessed": return "COALESCE(\(side).accessed, ?)"
        default: return "\(side).\(column)"
        }
    }

    /// The side's newer rows over the target's, ids kept; `accessed` keeps the later one (it orders ambient eviction).
    private var updateSQL: String {
        let sets = valueColumns.map { column in
            column == "accessed"
                ? "accessed = MAX(\(target).accessed, \(value(column)))" : "\(column) = \(value(column))"
        }
        return """
            UPDATE main.\(table) AS \(target) SET \(sets.joined(separator: ", "))
            FROM side.\(table) AS \(side)
            WHERE \(sameRow) AND \(wellTyped) AND \(inSidePack) AND \(MergeSQL.sideIsNewer(side, target))
            """
    }

    /// Rows the target lacks, in the side's order. DO NOTHING: an app's file made without the
    /// UNIQUE constraint may hold one key twice; the first row counts.
    private var insertSQL: String {
        let columns = keyColumns + valueColumns
        return """
            INSERT INTO main.\(table) (\(columns.joined(separator: ", ")))
            SELECT \(columns.map(value).joined(separator: ", ")) FROM side.\(table) \(side)
            WHERE \(wellTyped) AND \(inSidePack) AND NOT EXISTS (SELECT 1 FROM main.\(table) \(target) WHERE \(sameRow))
            ORDER BY \(side).id
            ON CONFLICT DO NOTHING
            """
    }

    private var linkSQL: String {
        """
        INSERT OR IGNORE INTO main.\(membership) (region_id, \(memberColumn))
        SELECT m.target_id, \(target).id FROM side.\(membership) sm
        JOIN \(MergeSQL.regionMap) m ON m.side_id = sm.region_id
        JOIN side.\(table) \(side) ON \(side).id = sm.\(memberColumn)
        JOIN main.\(table) \(target) ON \(sameRow)
        WHERE \(wellTyped)
        """
    }
}
