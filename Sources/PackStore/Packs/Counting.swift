import Basics
import Dispatch
import FoundationEssentials
import SQLiteDB

/// Figures kept current as the data changes, so that `status.json`, `progress.json`, `packfs
/// list` and `packfs status` read a row instead of counting a pack, let alone the database (a
/// count grows with the file: docs/benchmarks.md, "The background count at 100,000,000 tiles").
///
/// Two tables: `packfs_pack_counts` (a row per pack: its resources and tiles and their stored
/// bytes) and `packfs_totals` (one row: every resource and tile, the `mapbox://` tiles the Mapbox
/// limit counts, and the ambient cache). Triggers on MapLibre's four tables keep them current in
/// the transaction that changes the data, whichever program writes: PackFS, or an app's MapLibre
/// on the same file later. They are made by the first write PackFS makes to a file (a database
/// nobody wrote to stays exactly MapLibre's). A row that is missing, or marked `counting`, is
/// not known yet: a database an app filled before PackFS wrote to it is counted once, in the
/// background, while it is mounted (`countWhatIsNotCounted`), and until then every figure says
/// it is still being counted.
enum Counting {
    static let packTable = "packfs_pack_counts"
    /// Threads of a background count, each counting a target on read connections of its own:
    /// four whatever the cores, as a count mostly waits for pages read one at a time, and more
    /// reads in flight keep the disk and every core busy.
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

    /// The triggers of one kind of row (`tiles` or `resources`) and its membership table. A new
    /// row is ambient until a pack takes it; a membership adds it to the pack, and the first one
    /// takes it out of the ambient cache (the last one going puts it back); a change of data
    /// changes every holder's bytes. (Foreign keys keep a row with members from being deleted.)
    private static func rowTriggers(table: String, members: String, key: String, plural: String, mapbox: Bool) -> [String] {
        let bytes = plural == "tiles" ? "tile_bytes" : "resource_bytes"
        let urlColumn = table == "tiles" ? "url_template" : "url"
        let mapboxNew = mapbox ? ", mapbox_tiles = mapbox_tiles + (new.url_template LIKE 'mapbox://%')" : ""
        let mapboxOld = mapbox ? ", mapbox_tiles = mapbox_tiles - (old.url_template LIKE 'mapbox://%')" : ""
        // A pack counts its rows' stored bytes (MapLibre's completed_bytes); the ambient cache
        // what its rows cost on disk (`AmbientCache.cost`).
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

    /// Makes the tables and triggers inside the caller's write transaction, if they are not
    /// there yet. What is known at once is counted at once: an empty database's totals, and
    /// every pack that holds nothing; the rest waits for `countWhatIsNotCounted`.
    static func install(_ db: Database) throws {
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

    /// Makes a pack's extents' or runs' tables and triggers when `table` is missing. On a file
    /// whose figures were kept before it was (`countsExisted`), each pack holding tiles is marked
    /// to be counted again: its count measures them too.
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
    /// What a count is of: the whole database, or one pack.
    enum Target: Sendable {
        case totals
        case pack(RegionID)
    }

    /// The pack's kept figures; nil while they are not counted (or the row is damaged: PackFS's
    /// own bookkeeping, counted again by the next mount).
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

    /// Packs with no current figures: never counted, a count cut short by a crash, or figures
    /// no file of this size can hold (`counts(of:)` reads those as unknown). Packs are few.
    static func uncountedPacks(_ db: Database) throws -> [RegionID] {
        guard try db.tableExists(packTable) else { return [] }
        let packs = try Int64.fetchAll(db, sql: "SELECT id FROM regions r \(try Removals.visible(db))").map(RegionID.init(rawValue:))
        return try packs.filter { try counts(of: $0, db) == nil }
    }

    /// How many times a row's real size the ambient cost may charge it (`AmbientCache.cost`:
    /// 160 bytes and three keys for a row that takes some 40 at the least).
    static let costPerByte: Int64 = 8

    /// Whether kept figures can be true of this file: none negative, counts and stored bytes
    /// within the file's bytes (every row and byte is in it), costs within `costPerByte` times
    /// them. Figures that fail (an app's tool, a damaged file, a bug) read as unknown and are
    /// counted again in the background; they never reach a conversion or a sum.
    static func plausible(_ figures: [Int64], costs: [Int64] = [], in db: Database) throws -> Bool {
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
        let (fileBytes, overflow) = pages.multipliedReportingOverflow(by: size)
        guard !overflow, fileBytes >= 0 else { return false }
        let (costCeiling, costOverflow) = fileBytes.multipliedReportingOverflow(by: costPerByte)
        return figures.allSatisfy { (0...fileBytes).contains($0) }
            && costs.allSatisfy { $0 >= 0 && (costOverflow || $0 <= costCeiling) }
    }

    /// Starts a count (in the transaction that commits just before its snapshot): a zero row
    /// marked `counting`, to which the triggers add every change from now on.
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

    /// What a count found in its snapshot: the figures, and for a pack its runs (its extents
    /// are theirs).
    struct Measured: Sendable {
        var figures: [Int64]
        var runs: [Runs.Row] = []
    }

    /// What the snapshot holds for `targets`, begun together (the slow part), in parts that read
    /// the same snapshot at once, each on a connection of its own; each part gives a `Measured`
    /// per target, and the parts' figures add up target by target. The totals come with every
    /// pack not counted yet, from one pass over the whole database (`CensusPass`); a pack alone is
    /// a pass over its own memberships (`Census.pack`).
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
            // The row was still being counted (not removed meanwhile): its extents and runs are
            // complete.
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
    /// Counts what no kept figure covers yet (a database an app filled, or one PackFS wrote
    /// before it kept figures): the totals with every pack in one pass, or (the totals known)
    /// each pack alone, on `Counting.workers` threads; figures are published as their count ends.
    /// Each count reads a snapshot taken as its zero rows commit, off the writer: downloads and
    /// readers go on meanwhile, and the triggers add what they change to the zero rows. Run by a
    /// mount in the background; a count cut short (unmount, crash) is started again by the next.
    func countWhatIsNotCounted() throws {
        guard mode == .mount, let pool = writer as? DatabasePool else { return }
        // The tables first when they are missing (a file PackFS never wrote to): a pack is listed
        // as uncounted only once they exist.
        if try !read({ try $0.tableExists(Counting.packTable) }) {
            try requireOwnFile()
            try write { batch in try Counting.install(batch.database) }
        }
        let packs: [Counting.Target] = try read(Counting.uncountedPacks).map { .pack($0) }
        let jobs = try read({ try Counting.totals($0) }) == nil ? [[.totals] + packs] : packs.map { [$0] }
        let queue = LockedState(jobs[...])
        let failure = LockedState<Error?>(nil)
        // Each worker takes the next job until none is left.
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

    /// Starts `countWhatIsNotCounted` on a thread of its own (a mount's); `close()` stops it.
    /// `log` gets a failure (the next mount counts again).
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

    /// Ends a background count at `close()`: a scan under way is interrupted (its row stays
    /// marked `counting`, and the next mount counts again).
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
                // Each part's read takes its snapshot before this returns, while the writer is
                // held: every part reads the state the zero rows committed.
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
