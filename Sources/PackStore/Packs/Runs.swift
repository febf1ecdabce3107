import SQLiteDB

/// Exactly which tiles each pack holds, as maximal runs of rows `min_y...max_y` per tile column
/// (`packfs_pack_runs`; docs/internals.md, "Where each pack's tiles lie"); `coverage.geojson` is drawn from them.
/// Unlike `Extents`, runs never overlap or touch. Triggers on `region_tiles` keep them whichever program writes,
/// with no SQL newer than `Extents`' upserts. "No content" tiles count: the pack holds that place's answer.
/// Complete exactly when the pack's `Counting` figures are; a removed pack's runs go in its first removal step.
enum Runs {
    static let table = "packfs_pack_runs"

    /// The columns of a table of a pack's tile columns and a range of rows there (`Extents` too).
    static let columnRows = """
        region_id INTEGER NOT NULL, url_template TEXT NOT NULL, pixel_ratio INTEGER NOT NULL,
          z INTEGER NOT NULL, x INTEGER NOT NULL, min_y INTEGER NOT NULL, max_y INTEGER NOT NULL
        """

    /// Whether tile row `alias` names a file (text template, integer coordinates); other rows are in no run or extent.
    static func namesFile(_ alias: String) -> String {
        "typeof(\(alias).url_template) = 'text'"
            + ["pixel_ratio", "z", "x", "y"].map { " AND typeof(\(alias).\($0)) = 'integer'" }.joined()
    }

    /// The tile row `k` of the membership `m` (`new` or `old`), if it names a file.
    private static func tile(_ m: String) -> String { "k.id = \(m).tile_id AND \(namesFile("k"))" }

    /// Run `alias` in tile `k`'s column of membership `m`'s pack.
    private static func column(_ alias: String, _ m: String) -> String {
        """
        \(alias).region_id = \(m).region_id AND \(alias).url_template = k.url_template
          AND \(alias).pixel_ratio = k.pixel_ratio AND \(alias).z = k.z AND \(alias).x = k.x
        """
    }

    /// The last row of the run starting at or before `y` in `k`'s column (NULL if none): the one run that can hold `y`.
    private static func endBefore(_ y: String, _ m: String) -> String {
        "(SELECT q.max_y FROM packfs_pack_runs q WHERE \(column("q", m)) AND q.min_y <= \(y) ORDER BY q.min_y DESC LIMIT 1)"
    }

    private static func startBefore(_ y: String, _ m: String) -> String {
        "(SELECT max(q.min_y) FROM packfs_pack_runs q WHERE \(column("q", m)) AND q.min_y <= \(y))"
    }

    /// A run in the column of membership `m`'s tile, each key column a constant: a row value `IN (SELECT ...)` here
    /// seeks by region only, then reads every run of the pack.
    private static func runAt(_ m: String) -> String {
        ["url_template", "pixel_ratio", "z", "x"].reduce("region_id = \(m).region_id") { clause, key in
            clause + " AND \(key) = (SELECT k.\(key) FROM tiles k WHERE k.id = \(m).tile_id)"
        }
    }

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_runs (
          \(columnRows),
          PRIMARY KEY (region_id, url_template, pixel_ratio, z, x, min_y)
        ) WITHOUT ROWID
        """,
        // Packs whose background count is measuring their runs, and the tiles that left them since.
        "CREATE TABLE IF NOT EXISTS packfs_pack_run_counts (region_id INTEGER NOT NULL PRIMARY KEY)",
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_run_drops (
          region_id INTEGER NOT NULL,
          url_template TEXT NOT NULL,
          pixel_ratio INTEGER NOT NULL,
          z INTEGER NOT NULL,
          x INTEGER NOT NULL,
          y INTEGER NOT NULL
        )
        """,
        // A new membership at y: the run ending at y - 1 grows to y, else a run starts at y; either takes in the run
        // starting at y + 1, which then goes. Nothing changes when a run already holds y.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_runs_region_tiles_insert AFTER INSERT ON region_tiles
        BEGIN
          INSERT INTO packfs_pack_runs (region_id, url_template, pixel_ratio, z, x, min_y, max_y)
            SELECT p.region_id, p.url_template, p.pixel_ratio, p.z, p.x, p.min_y,
                COALESCE((SELECT n.max_y FROM packfs_pack_runs n WHERE \(column("n", "new")) AND n.min_y = k.y + 1), k.y)
              FROM tiles k CROSS JOIN packfs_pack_runs p ON \(column("p", "new")) AND p.min_y = \(startBefore("k.y", "new"))
              WHERE \(tile("new")) AND p.max_y = k.y - 1
            ON CONFLICT (region_id, url_template, pixel_ratio, z, x, min_y) DO UPDATE SET max_y = excluded.max_y;
          INSERT OR IGNORE INTO packfs_pack_runs (region_id, url_template, pixel_ratio, z, x, min_y, max_y)
            SELECT new.region_id, k.url_template, k.pixel_ratio, k.z, k.x, k.y,
                COALESCE((SELECT n.max_y FROM packfs_pack_runs n WHERE \(column("n", "new")) AND n.min_y = k.y + 1), k.y)
              FROM tiles k WHERE \(tile("new")) AND COALESCE(\(endBefore("k.y", "new")), k.y - 1) < k.y;
          DELETE FROM packfs_pack_runs WHERE \(runAt("new"))
            AND min_y = (SELECT k.y + 1 FROM tiles k WHERE \(tile("new")) AND \(endBefore("k.y", "new")) > k.y);
        END
        """,
        // A membership going at y: the rest of its run after y becomes a run of its own; the run ends at y - 1, or goes
        // if it started at y.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_runs_region_tiles_delete AFTER DELETE ON region_tiles
        BEGIN
          INSERT INTO packfs_pack_run_drops (region_id, url_template, pixel_ratio, z, x, y)
            SELECT old.region_id, k.url_template, k.pixel_ratio, k.z, k.x, k.y
              FROM tiles k WHERE \(tile("old")) AND EXISTS (SELECT 1 FROM packfs_pack_run_counts c WHERE c.region_id = old.region_id);
          INSERT OR IGNORE INTO packfs_pack_runs (region_id, url_template, pixel_ratio, z, x, min_y, max_y)
            SELECT p.region_id, p.url_template, p.pixel_ratio, p.z, p.x, k.y + 1, p.max_y
              FROM tiles k CROSS JOIN packfs_pack_runs p ON \(column("p", "old")) AND p.min_y = \(startBefore("k.y", "old"))
              WHERE \(tile("old")) AND p.max_y > k.y;
          INSERT INTO packfs_pack_runs (region_id, url_template, pixel_ratio, z, x, min_y, max_y)
            SELECT p.region_id, p.url_template, p.pixel_ratio, p.z, p.x, p.min_y, k.y - 1
              FROM tiles k CROSS JOIN packfs_pack_runs p ON \(column("p", "old")) AND p.min_y = \(startBefore("k.y", "old"))
              WHERE \(tile("old")) AND p.min_y < k.y AND p.max_y >= k.y
            ON CONFLICT (region_id, url_template, pixel_ratio, z, x, min_y) DO UPDATE SET max_y = excluded.max_y;
          DELETE FROM packfs_pack_runs WHERE \(runAt("old")) AND min_y = (SELECT k.y FROM tiles k WHERE \(tile("old")));
        END
        """,
        // A region id can be used again (`Extents`): a new pack starts with no runs.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_runs_region_insert AFTER INSERT ON regions
        BEGIN
          DELETE FROM packfs_pack_runs WHERE region_id = new.id;
          DELETE FROM packfs_pack_run_counts WHERE region_id = new.id;
          DELETE FROM packfs_pack_run_drops WHERE region_id = new.id;
        END
        """,
    ]

    /// A tile column: the key of its runs.
    struct Column: Hashable, Sendable {
        var urlTemplate: String
        var pixelRatio: Int64
        var z: Int64
        var x: Int64

        /// The pack's rows of this column, as statement arguments.
        func key(_ region: RegionID) -> StatementArguments { [region.rawValue, urlTemplate, pixelRatio, z, x] }
    }

    struct Row: Sendable {
        var column: Column
        var minY: Int64
        var maxY: Int64
    }

    /// Starts measuring a pack's runs (with `Counting.begin`): from here on, memberships that go are noted.
    static func begin(_ region: RegionID, _ db: Database) throws {
        try clear(region, db, runs: false)
        try db.execute(sql: "INSERT INTO packfs_pack_run_counts (region_id) VALUES (?)", arguments: [region.rawValue])
    }

    /// The pack's runs in a snapshot (a pass over its memberships, by the count), in column order.
    static func measure(_ region: RegionID, _ db: Database) throws -> [Row] {
        let cursor = try SQLiteDB.Row.fetchCursor(db, sql: """
            SELECT t.url_template, t.pixel_ratio, t.z, t.x, t.y
              FROM region_tiles rt CROSS JOIN tiles t ON t.id = rt.tile_id
              WHERE rt.region_id = ? AND \(namesFile("t"))
              ORDER BY t.url_template, t.pixel_ratio, t.z, t.x, t.y
            """, arguments: [region.rawValue])
        var runs: [Row] = []
        while let row = try cursor.next() {
            guard let column = Column(row), let y: Int64 = row.lenient("y") else { continue }
            if let last = runs.last, last.column == column, last.maxY == Int64.max || last.maxY + 1 >= y {
                runs[runs.count - 1].maxY = max(last.maxY, y)
            } else {
                runs.append(Row(column: column, minY: y, maxY: y))
            }
        }
        return runs
    }

    /// Each column's extent (lowest and highest row) from its runs.
    static func extents(_ runs: [Row]) -> [Row] {
        var extents: [Row] = []
        for run in runs {
            if let last = extents.last, last.column == run.column {
                extents[extents.count - 1].maxY = max(last.maxY, run.maxY)
            } else {
                extents.append(run)
            }
        }
        return extents
    }

    /// Sets the runs to the snapshot's plus those kept since, less tiles that left and are still out; ends measuring.
    static func finish(_ measured: [Row], into region: RegionID, _ db: Database) throws {
        var columns: [Column: [ClosedRange<Int64>]] = [:]
        for run in measured { columns[run.column, default: []].append(run.minY...run.maxY) }
        let drops = try SQLiteDB.Row.fetchAll(db, sql: """
            SELECT url_template, pixel_ratio, z, x, y FROM packfs_pack_run_drops d WHERE region_id = ?
              AND NOT EXISTS (SELECT 1 FROM tiles t JOIN region_tiles rt ON rt.tile_id = t.id AND rt.region_id = d.region_id
                WHERE t.url_template = d.url_template AND t.pixel_ratio = d.pixel_ratio AND t.z = d.z AND t.x = d.x AND t.y = d.y)
            """, arguments: [region.rawValue])
        var dropped: [Column: Set<Int64>] = [:]
        for row in drops {
            guard let column = Column(row), let y: Int64 = row.lenient("y") else { continue }
            dropped[column, default: []].insert(y)
            columns[column, default: []] += []
        }
        let kept = try db.cachedStatement(sql: """
            SELECT min_y, max_y FROM packfs_pack_runs
              WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? AND z = ? AND x = ?
            """)
        let clear = try db.cachedStatement(sql: """
            DELETE FROM packfs_pack_runs WHERE region_id = ? AND url_template = ? AND pixel_ratio = ? AND z = ? AND x = ?
            """)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO packfs_pack_runs (region_id, url_template, pixel_ratio, z, x, min_y, max_y) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (column, ranges) in columns {
            let key = column.key(region)
            let current = try SQLiteDB.Row.fetchAll(kept, arguments: key).compactMap { row -> ClosedRange<Int64>? in
                guard let low: Int64 = row.lenient("min_y"), let high: Int64 = row.lenient("max_y"), low <= high else { return nil }
                return low...high
            }
            let merged = subtract(dropped[column] ?? [], from: union(ranges + current))
            try clear.execute(arguments: key)
            for range in merged { try insert.execute(arguments: key + [range.lowerBound, range.upperBound]) }
        }
        try self.clear(region, db, runs: false)
    }

    /// Sorted, disjoint ranges that neither overlap nor touch, covering exactly `ranges`.
    static func union(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var merged: [ClosedRange<Int64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, last.upperBound == Int64.max || last.upperBound + 1 >= range.lowerBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// `ranges` (sorted, disjoint) without the rows `rows`.
    static func subtract(_ rows: Set<Int64>, from ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        guard !rows.isEmpty else { return ranges }
        var result: [ClosedRange<Int64>] = []
        for range in ranges {
            var low: Int64? = range.lowerBound
            for y in rows.filter({ range.contains($0) }).sorted() {
                if let start = low, start < y { result.append(start...(y - 1)) }
                low = y < Int64.max ? y + 1 : nil
            }
            if let start = low, start <= range.upperBound { result.append(start...range.upperBound) }
        }
        return result
    }

    /// Drops a removed pack's runs (its first removal step), or a count's notes.
    static func clear(_ region: RegionID, _ db: Database, runs: Bool = true) throws {
        guard try db.tableExists(table) else { return }
        if runs { try db.execute(sql: "DELETE FROM packfs_pack_runs WHERE region_id = ?", arguments: [region.rawValue]) }
        try db.execute(sql: "DELETE FROM packfs_pack_run_counts WHERE region_id = ?", arguments: [region.rawValue])
        try db.execute(sql: "DELETE FROM packfs_pack_run_drops WHERE region_id = ?", arguments: [region.rawValue])
    }
}

extension Runs.Column {
    /// The row's column (`url_template`, `pixel_ratio`, `z`, `x`); nil when it names no file.
    init?(_ row: SQLiteDB.Row) {
        guard let template: String = row.lenient("url_template"), let ratio: Int64 = row.lenient("pixel_ratio"),
            let z: Int64 = row.lenient("z"), let x: Int64 = row.lenient("x")
        else { return nil }
        self.init(urlTemplate: template, pixelRatio: ratio, z: z, x: x)
    }
}
