import Dispatch
import Downloader
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs verify`: whether a pack is what it should be, read-only (it works while the database
/// is mounted, through its own read transactions).
///
/// Per tiled source: its tile count and hash (`PackHash`'s rule, through `MBTilesTiles`), equal
/// to the one recorded when the pack last became whole; every stored tile and resource inflates
/// where it is marked compressed; every vector tile (gzipped or not) parses as a protobuf with
/// named layers; every tile the region's plan needs (`StoredPlan`, from the stored documents) is
/// stored, with content or as "no content".
///
/// Threading: the calling thread reads the tiles in martin's order, in batches of their bytes;
/// each batch is hashed on a serial queue in that order (MD5 is one stream) and then checked on
/// a concurrent one (`BatchPipeline`), so every core works and memory stays a few batches.
public final class PackVerification: Sendable {
    public struct SourceReport: Sendable {
        public var id: String
        public var urlTemplate: String
        public var tiles: Int
        public var hash: String
        /// The hash recorded when the pack last became whole; nil when none was.
        public var recorded: String?
    }

    public struct Report: Sendable {
        public var pack: String
        public var sources: [SourceReport]
        public var resources: Int
        /// Tiles the region's plan needs; nil when the plan cannot be made from stored documents.
        public var plannedTiles: Int?
        /// The first `PackVerification.shownProblems`, one line each, naming the tile or resource.
        public var problems: [String]
        public var problemCount: Int

        public var isSound: Bool { problemCount == 0 }
    }

    public static let shownProblems = 20
    /// Bytes of tiles handed to the checks at a time.
    static let batchBytes = 4 << 20

    private let database: OfflineDatabase
    private let pack: Pack
    private let problems = ProblemList(keeping: PackVerification.shownProblems)
    private let done = LockedState(0)

    public init(database: OfflineDatabase, pack: Pack) {
        self.database = database
        self.pack = pack
    }

    /// Runs every check; `progress(tilesDone, tilesTotal)` is called now and then from this thread.
    public func run(progress: (Int, Int) -> Void = { _, _ in }) throws -> Report {
        let total = try expectedTiles()
        let style = try PackStyle.load(pack, from: database)
        let recorded = try database.recordedHashes(of: pack.id)
        var sources: [SourceReport] = []
        var present: [TileColumnSet: Set<UInt64>] = [:]
        var seen = Set<TileColumnSet>()
        // The walked tiles' places, for the plan's check only (a set of 500,000 cost a tenth of a verify).
        for source in style?.sources ?? [] {
            guard let columns = source.columns, let tiles = source.tiles, seen.insert(columns).inserted else { continue }
            var keys: Set<UInt64>? = plannedDefinition == nil ? nil : []
            let hash = try walk(source, vector: tiles.type == .vector, keys: &keys) { progress(done.withLock { $0 }, total) }
            if let keys { present[columns] = keys }
            let stored = recorded.first { $0.urlTemplate == columns.urlTemplate && $0.pixelRatio == columns.pixelRatio }
            if let stored, stored.hash != hash.hex {
                problems.add("source \(source.id): tiles hash to \(hash.hex), recorded \(stored.hash) (\(stored.tiles) tiles)")
            }
            sources.append(SourceReport(
                id: source.id, urlTemplate: columns.urlTemplate, tiles: hash.tiles, hash: hash.hex, recorded: stored?.hash))
        }
        progress(done.withLock { $0 }, total)
        let resources = try checkResources()
        let planned = try checkPlan(present: present)
        let (shown, count) = problems.snapshot
        return Report(
            pack: pack.name, sources: sources, resources: resources, plannedTiles: planned, problems: shown,
            problemCount: count)
    }

    /// The pack's tile count as kept (for the progress bar), else as required.
    private func expectedTiles() throws -> Int {
        let progress = try database.progress(of: pack.id)
        return progress.counted ? progress.counts.tiles : progress.requiredTiles
    }

    /// One source: read here in batches, hashed and checked beside (`BatchPipeline`).
    private func walk(
        _ source: PackStyle.Source, vector: Bool, keys: inout Set<UInt64>?, tick: () -> Void
    ) throws -> TileSetHash {
        let pipeline = BatchPipeline(problems: problems, done: done, arenaBytes: Self.batchBytes + (1 << 20))
        var finished = false
        defer { if !finished { _ = pipeline.finish() } }
        var batch = TileBatch(source: source.id, vector: vector, arena: pipeline.arena())
        try MBTilesTiles.forEachInPlace(of: source, in: database, outside: { pipeline.outside(source.id) }) { z, column, tmsRow, storedY, stored in
            keys?.insert(Self.key(z: z, x: column, y: storedY))
            batch.append(z: z, column: column, tmsRow: tmsRow, storedY: storedY, stored)
            if batch.bytes >= Self.batchBytes {
                pipeline.submit(batch)
                batch = TileBatch(source: source.id, vector: vector, arena: pipeline.arena())
                tick()
            }
        }
        pipeline.submit(batch)
        finished = true
        return pipeline.finish()
    }

    /// Each resource of the pack inflates where it is marked compressed; returns how many.
    private func checkResources() throws -> Int {
        var count = 0
        for kind in ResourceKind.allCases {
            for (id, url) in try database.packResources(of: kind, in: pack.id) {
                count += 1
                guard let stored = try database.packResourceData(id, in: pack.id) else { continue }
                do {
                    _ = try stored.decoded()
                } catch {
                    problems.add("resource \(url): marked compressed but does not inflate: \(error)")
                }
            }
        }
        return count
    }

    /// Every tile of the plan is stored (with content, walked; or as "no content"); the count
    /// of planned tiles, nil when the plan cannot be made from what is stored.
    private func checkPlan(present: [TileColumnSet: Set<UInt64>]) throws -> Int? {
        guard let definition = plannedDefinition, let plan = try StoredPlan.make(for: definition, in: database)
        else { return nil }
        try plan.forEachTile { key in
            let set = TileColumnSet(region: pack.id, urlTemplate: key.urlTemplate, pixelRatio: key.pixelRatio)
            if present[set]?.contains(Self.key(z: key.z, x: key.x, y: key.y)) == true { return true }
            if try database.packTileID(key, in: pack.id) == nil {
                problems.add("tile \(key.z)/\(key.x)/\(key.y) of \(key.urlTemplate): the plan needs it and the pack lacks it")
            }
            return true
        }
        return plan.tileCount
    }

    /// The region whose plan is checked: none for an imported file's pack.
    private var plannedDefinition: RegionDefinition? {
        guard let definition = pack.definition, !ImportedFiles.isImported(definition.styleURL) else { return nil }
        return definition
    }

    /// z (5 bits), x and y (29 bits each): a tile's place in its set.
    static func key(z: Int, x: Int, y: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: z) << 58 | UInt64(truncatingIfNeeded: x & 0x1FFF_FFFF) << 29
            | UInt64(truncatingIfNeeded: y & 0x1FFF_FFFF)
    }
}
