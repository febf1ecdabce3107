import Basics
import Dispatch
import FoundationEssentials
import SQLiteDB

/// Figures kept current as the data changes, so `status.json`, `progress.json` and `packfs list`/`status` read a
/// row instead of counting (docs/internals.md, "Figures are kept, not counted"). PackFS makes the triggers at its
/// first write, so a file nobody wrote to stays exactly MapLibre's. A missing row, or one marked `counting`, is
/// unknown until a mount's background count (`countWhatIsNotCounted`) has counted it.
enum Counting {
    static let packTable = "packfs_pack_counts"
    /// Threads of a background count: four whatever the cores, as a count mostly waits on page reads.
    static let workers = 4
    static let totalsTable = "packfs_totals"

    /// The stored length of a row's data ("no content" is 0).
    private static func size(_ row: String) -> String { "COALESCE(LENGTH(\(row).data), 0)" }

    static let statements: [String] = [
        """
        CREATE TABLE IF NOT EXISTS packfs_pack_counts (
          region_id INTEGER NOT NULL PRIMARY KEY REFERENCES regions(id) ON DELETE CASCADE,
          resources INTEGER NOT NULL DEFAULT 0,
          resource_bytes INTEGER NOT NULL DEFAULT 0,
          tiles INTEGER NOT NULL DEFAULT 0,
          tile_bytes INTEGER NOT NULL DEFAULT 0,
          counting INTEGER NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS packfs_totals (
          id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
          resources INTEGER NOT NULL DEFAULT 0,
          tiles INTEGER NOT NULL DEFAULT 0,
          mapbox_tiles INTEGER NOT NULL DEFAULT 0,
          ambient_resources INTEGER NOT NULL DEFAULT 0,
          ambient_tiles INTEGER NOT NULL DEFAULT 0,
          ambient_bytes INTEGER NOT NULL DEFAULT 0,
          counting INTEGER NOT NULL DEFAULT 0
        )
        """,
        // A new pack holds nothing yet: counted from its first row.
        """
        CREATE TRIGGER IF NOT EXISTS packfs_count_region_insert AFTER INSERT ON regions
        BEGIN INSERT OR IGNORE INTO packfs_pack_counts (region_id) VALUES (new.id); END
        """,
    ] + rowTriggers(table: "tiles", members: "region_tiles", key: "tile_id", plural: "tiles", mapbox: true)
        + rowTriggers(table: "resources", members: "region_resources", key: "resource_id", plural: "resources", mapbox: false)

    /// The triggers of `tiles` or `resources` and its memberships. A new row is ambient until a pack takes it: the
    /// first membership takes it out of the ambient cache, the last leaving puts it back (foreign keys keep held rows).
    private static func rowTriggers(table: String, members: String, key: String, plural: String, mapbox: Bool) -> [String] {
        let bytes = plural == "tiles" ? "tile_bytes" : "resource_bytes"
        let urlColumn = table == "tiles" ? "url_template" : "url"
        let mapboxNew = mapbox ? ", mapbox_tiles = mapbox_tiles + (new.url_template LIKE 'mapbox://%')" : ""
        let mapboxOld = mapbox ? ", mapbox_tiles = mapbox_tiles - (old.url_template LIKE 'mapbox://%')" : ""
        // A pack counts stored bytes (MapLibre's completed_bytes), the ambient cache disk cost (`AmbientCache.cost`).
        func held(_ id: String, _ measure: String) -> String { "COALESCE((SELECT \(measure) FROM \(table) x WHERE x.id = \(id)), 0)" }
        let cost = { (row: String) in AmbientCache.cost(row, key: urlColumn) }
        return [
            """
            CREATE TRIGGER IF NOT EXISTS packfs_count_\(table)_insert AFTER INSERT ON \(table)
            BEGIN
              UPDATE packfs_totals SET \(plural) = \(plural) + 1\(mapboxNew),
                ambient_\(plural) = ambient_\(plural) + 1, ambient_bytes = ambient_bytes + \(cost("new"));
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS packfs_count_\(table)_delete AFTER DELETE ON \(table)
            BEGIN
              UPDATE packfs_totals SET \(plural) = \(plural) - 1\(mapboxOld);
              UPDATE packfs_totals SET ambient_\(plural) = ambient_\(plural) - 1, ambient_bytes = ambient_bytes - \(cost("old"))
                WHERE NOT EXISTS (SELECT 1 FROM \(members) WHERE \(key) = old.id);
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS packfs_count_\(table)_update AFTER UPDATE OF data ON \(table)
            WHEN \(size("old")) != \(size("new"))
            BEGIN
              UPDATE packfs_pack_counts SET \(bytes) = \(bytes) + \(size("new")) - \(size("old"))
                WHERE region_id IN (SELECT region_id FROM \(members) WHERE \(key) = new.id);
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS packfs_count_\(table)_cost AFTER UPDATE OF data, etag ON \(table)
            WHEN \(cost("old")) != \(cost("new"))
            BEGIN
              UPDATE packfs_totals SET ambient_bytes = ambient_bytes + \(cost("new")) - \(cost("old"))
                WHERE NOT EXISTS (SELECT 1 FROM \(members) WHERE \(key) = new.id);
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS packfs_count_\(members)_insert AFTER INSERT ON \(members)
            BEGIN
              UPDATE packfs_pack_counts SET \(plural) = \(plural) + 1, \(bytes) = \(bytes) + \(held("new.\(key)", size("x")))
                WHERE region_id = new.region_id;
              UPDATE packfs_totals SET ambient_\(plural) = ambient_\(plural) - 1,
                ambient_bytes = ambient_bytes - \(held("new.\(key)", cost("x")))
                WHERE NOT EXISTS (SELECT 1 FROM \(members) WHERE \(key) = new.\(key) AND region_id != new.region_id);
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS packfs_count_\(members)_delete AFTER DELETE ON \(members)
            BEGIN
              UPDATE packfs_pack_counts SET \(plural) = \(plural) - 1, \(bytes) = \(bytes) - \(held("old.\(key)", size("x")))
                WHERE region_id = old.region_id;
              UPDATE packfs_totals SET ambient_\(plural) = ambient_\(plural) + 1,
                ambient_bytes = ambient_bytes + \(held("old.\(key)", cost("x")))
                WHERE EXISTS (SELECT 1 FROM \(table) WHERE id = old.\(key))
                  AND NOT EXISTS (SELECT 1 FROM \(members) WHERE \(key) = old.\(key));
            END
            """,
        ]
    }

    /// Makes the tables and triggers in the caller's write transaction if missing. What is known at once (an empty
    /// database's totals, every empty pack) is counted at once; the rest waits for `countWhatIsNotCounted`.
    static func install(_ db: Database) throws {
        try PackTiles.install(db)
        let countsExisted = try db.tableExists(totalsTable)
        for (table, statements) in [(Extents.table, Extents.statements), (Runs.table, Runs.statements)] {
            try installKept(table, statements, db, countsExisted: countsExisted)
        }
        guard !countsExisted else { return }
        for statement in statements { try db.execute(sql: statement) }
        let filled = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tiles) OR EXISTS (SELECT 1 FROM resources)")
        if filled == false { try db.execute(sql: "INSERT INTO packfs_totals (id) VALUES (1)") }
        try db.execute(sql: """
            INSERT INTO packfs_pack_counts (region_id)
              SELECT id FROM regions r WHERE NOT EXISTS (SELECT 1 FROM region_tiles WHERE region_id = r.id)
                AND NOT EXISTS (SELECT 1 FROM region_resources WHERE region_id = r.id)
            """)
    }

    /// Makes the extents' or runs' table and triggers when missing. On a file whose figures predate it
    /// (`countsExisted`), each pack holding tiles is marked to be counted again, as its count measures them too.
    private static func installKept(
        _ table: String, _ statements: [String], _ db: Database, countsExisted: Bool
    ) throws {
        guard try !db.tableExists(table) else { return }
        for statement in statements { try db.execute(sql: statement) }
        guard countsExisted else { return }
        try db.execute(sql: """
            UPDATE packfs_pack_counts SET counting = 1
              WHERE EXISTS (SELECT 1 FROM region_tiles WHERE region_id = packfs_pack_counts.region_id)
            """)
    }
}

/// A mount's background count (`OfflineDatabase.startCounting`).
final class BackgroundCount: Sendable {
    let stopped = LockedState(false)
    let group = DispatchGroup()
}

/// Database-wide figures kept by `Counting`.
public struct DatabaseTotals: Equatable, Sendable {
    public var resources: Int
    public var tiles: Int
    /// Tiles with a `mapbox://` template (MapLibre's limit counts those).
    public var mapboxTiles: Int
    public var ambient: AmbientUsage
}

extension Counting {
    enum Target: Sendable {
        case totals
        case pack(RegionID)
    }

    /// The pack's kept figures; nil while not counted or the row is damaged (own bookkeeping: counted again).
    static func counts(of region: RegionID, _ db: Database) throws -> PackCounts? {
        guard try db.tableExists(packTable),
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM packfs_pack_counts WHERE region_id = ? AND counting = 0"),
                arguments: [region.rawValue])
        else { return nil }
        func value<T: DatabaseValueConvertible>(_ column: String) -> T? { try? row.decode(forColumn: column) }
        guard let resources: Int = value("resources"), let resourceBytes: Int64 = value("resource_bytes"),
            let tiles: Int = value("tiles"), let tileBytes: Int64 = value("tile_bytes"),
            try plausible([Int64(resources), resourceBytes, Int64(tiles), tileBytes], in: db)
        else { return nil }
        var counts = PackCounts()
        (counts.resources, counts.resourceBytes, counts.tiles, counts.tileBytes) = (resources, resourceBytes, tiles, tileBytes)
        return counts
    }

    /// The kept totals; nil while they are not counted.
    static func totals(_ db: Database) throws -> DatabaseTotals? {
        guard try db.tableExists(totalsTable),
            let row = try Row.fetchOne(db, sql: "SELECT * FROM packfs_totals WHERE id = 1 AND counting = 0")
        else { return nil }
        func value(_ column: String) -> Int? { try? row.decode(forColumn: column) }
        guard let resources = value("resources"), let tiles = value("tiles"), let mapbox = value("mapbox_tiles"),
            let ambientResources = value("ambient_resources"), let ambientTiles = value("ambient_tiles"),
            let ambientBytes = value("ambient_bytes"),
            try plausible([resources, tiles, mapbox, ambientResources, ambientTiles].map(Int64.init), costs: [Int64(ambientBytes)], in: db)
        else { return nil }
        return DatabaseTotals(
            resources: resources, tiles: tiles, mapboxTiles: mapbox,
            ambient: AmbientUsage(resources: ambientResources, tiles: ambientTiles, bytes: Int64(ambientBytes)))
    }

    /// Packs with no current figures: never counted, cut short by a crash, or not `plausible`. Packs are few.
    static func uncountedPacks(_ db: Database) throws -> [RegionID] {
        guard try db.tableExists(packTable) else { return [] }
        let packs = try Int64.fetchAll(db, sql: "SELECT id FROM regions r \(try Removals.visible(db))").map(RegionID.init(rawValue:))
        return try packs.filter { try counts(of: $0, db) == nil }
    }

    /// How many times a row's real size `AmbientCache.cost` may charge it (160 bytes, 3 keys; a row takes 40 at least).
    static let costPerByte: Int64 = 8

    /// Whether kept figures can be true of this file: none negative, counts and bytes within its size, costs within
    /// `costPerByte` times it. Others (an app's tool, a damaged file, a bug) read as unknown, never reaching a sum.
    static func plausible(_ figures: [Int64], costs: [Int64] = [], in db: Database) throws -> Bool {
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        let (fileBytes, overflow) = pages.multipliedReportingOverflow(by: size)
        guard !overflow, fileBytes >= 0 else { return false }
        let (costCeiling, costOverflow) = fileBytes.multipliedReportingOverflow(by: costPerByte)
        return figures.allSatisfy { (0...fileBytes).contains($0) }
            && costs.allSatisfy { $0 >= 0 && (costOverflow || $0 <= costCeiling) }
    }

    /// Starts a count, committed just before its snapshot: a zero row marked `counting` that the triggers add to.
    static func begin(_ target: Target, _ db: Database) throws {
        switch target {
        case .totals:
            try db.execute(sql: "DELETE FROM packfs_totals")
            try db.execute(sql: "INSERT INTO packfs_totals (id, counting) VALUES (1, 1)")
        case .pack(let region):
            try db.execute(sql: "DELETE FROM packfs_pack_counts WHERE region_id = ?", arguments: [region.rawValue])
            try db.execute(
                sql: "INSERT INTO packfs_pack_counts (region_id, counting) SELECT id, 1 FROM regions WHERE id = ?",
                arguments: [region.rawValue])
            try Runs.begin(region, db)
        }
    }

    /// What a count found in its snapshot: the figures, and for a pack its runs (its extents come from them).
    struct Measured: Sendable {
        var figures: [Int64]
        var runs: [Runs.Row] = []
    }

    /// The parts measuring `targets` (begun together) on connections of their own, one snapshot, each giving a
    /// `Measured` per target to add up: the totals with every uncounted pack (`CensusPass`), or a pack (`Census.pack`).
    static func measure(_ targets: [Target], stopped: @escaping @Sendable () -> Bool = { false })
        -> [@Sendable (Database) throws -> [Measured]]
    {
        let packs = targets.compactMap { target -> RegionID? in if case .pack(let region) = target { region } else { nil } }
        guard case .totals = targets.first else { return packs.map { region in { [try Census.pack(region, $0)] } } }
        return CensusPass(packs: packs).parts(workers: workers, stopped: stopped)
    }

    /// Adds the snapshot's figures to the changes counted since, and marks the row current.
    static func finish(_ target: Target, _ measured: Measured, _ db: Database) throws {
        switch target {
        case .totals:
            try db.execute(sql: """
                UPDATE packfs_totals SET resources = resources + ?, tiles = tiles + ?, mapbox_tiles = mapbox_tiles + ?,
                  ambient_resources = ambient_resources + ?, ambient_tiles = ambient_tiles + ?,
                  ambient_bytes = ambient_bytes + ?, counting = 0
                WHERE id = 1 AND counting = 1
                """, arguments: StatementArguments(measured.figures))
        case .pack(let region):
            try db.execute(sql: """
                UPDATE packfs_pack_counts SET resources = resources + ?, resource_bytes = resource_bytes + ?,
                  tiles = tiles + ?, tile_bytes = tile_bytes + ?, counting = 0
                WHERE region_id = ? AND counting = 1
                """, arguments: StatementArguments(measured.figures + [region.rawValue]))
            // Still being counted (not removed meanwhile): its extents and runs are complete.
            if db.changesCount > 0 {
                try Extents.merge(Runs.extents(measured.runs), into: region, db)
                try Runs.finish(measured.runs, into: region, db)
            } else {
                try Runs.clear(region, db, runs: false)
            }
        }
    }
}

extension OfflineDatabase {
    /// Counts what no kept figure covers yet on `Counting.workers` threads: the totals with every pack in one pass
    /// or, the totals known, each pack alone. Each count reads the snapshot its zero rows commit (`Counting.begin`)
    /// off the writer, so downloads and readers go on; one cut short (unmount, crash) is restarted by the next mount.
    func countWhatIsNotCounted() throws {
        guard mode == .mount, let pool = writer as? DatabasePool else { return }
        // The tables first, if missing: a pack is listed as uncounted only once they exist.
        if try !read({ try $0.tableExists(Counting.packTable) }) {
            try requireOwnFile()
            try write { batch in try Counting.install(batch.database) }
        }
        let packs: [Counting.Target] = try read(Counting.uncountedPacks).map { .pack($0) }
        let jobs = try read({ try Counting.totals($0) }) == nil ? [[.totals] + packs] : packs.map { [$0] }
        let queue = LockedState(jobs[...])
        let failure = LockedState<Error?>(nil)
        let work: @Sendable () -> Void = { [self] in
            while !backgroundCount.stopped.withLock({ $0 }), failure.withLock({ $0 == nil }),
                let job = queue.withLock({ $0.popFirst() })
            {
                do { try count(job, pool) } catch { failure.withLock { $0 = $0 ?? error } }
            }
        }
        let workers = DispatchGroup()
        // This thread is one worker, the others threads of their own (none started: it does all).
        for _ in 1..<max(1, min(Counting.workers, jobs.count)) {
            workers.enter()
            do {
                try QuietThread.start(name: "PackFS count") {
                    defer { workers.leave() }
                    work()
                }
            } catch {
                workers.leave()
            }
        }
        work()
        workers.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Starts `countWhatIsNotCounted` on a mount's thread; `close()` stops it, `log` gets a failure.
    public func startCounting(log: @escaping @Sendable (String) -> Void) {
        guard mode == .mount else { return }
        backgroundCount.group.enter()
        do {
            try QuietThread.start(name: "PackFS count") { [self] in
                defer { backgroundCount.group.leave() }
                do {
                    try countWhatIsNotCounted()
                } catch {
                    if !backgroundCount.stopped.withLock({ $0 }) { log("counting the database's figures failed: \(error)") }
                }
            }
        } catch {
            backgroundCount.group.leave()
            log("counting the database's figures did not start: no thread (\(error))")
        }
    }

    /// Ends a background count at `close()`: a scan under way is interrupted, its row left `counting`.
    func stopCounting() {
        backgroundCount.stopped.withLock { $0 = true }
        guard backgroundCount.group.wait(timeout: .now()) == .timedOut else { return }
        writer.interrupt()
        backgroundCount.group.wait()
    }

    private func count(_ targets: [Counting.Target], _ pool: DatabasePool) throws {
        try requireOwnFile()
        let stopped = backgroundCount.stopped
        let parts = Counting.measure(targets, stopped: { stopped.withLock { $0 } })
        let measured = LockedState<[Result<[Counting.Measured], Error>]>([])
        let done = DispatchGroup()
        try wrap {
            try pool.writeWithoutTransaction { db in
                try db.inTransaction {
                    try Counting.install(db)
                    for target in targets { try Counting.begin(target, db) }
                    return .commit
                }
                // Each part takes its snapshot before this returns, writer held: all read what the zero rows committed.
                for part in parts {
                    done.enter()
                    pool.asyncConcurrentRead { snapshot in
                        let result = Result { try part(try snapshot.get()) }
                        measured.withLock { $0.append(result) }
                        done.leave()
                    }
                }
            }
        }
        done.wait()
        guard !stopped.withLock({ $0 }) else { return }
        let results = try wrap { try measured.withLock { $0 }.map { try $0.get() } }
        let figures = try targets.indices.map { index in
            try wrap { try Counting.combine(results.compactMap { $0.indices.contains(index) ? $0[index] : nil }) }
        }
        try write { batch in
            for (target, measured) in zip(targets, figures) { try Counting.finish(target, measured, batch.database) }
        }
    }
}
