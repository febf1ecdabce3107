import Basics
import Dispatch
import Downloader
import FoundationEssentials
import PackStore
import StyleModel

/// `packfs verify`: whether a pack is what it should be, read-only (so it works on a mounted database).
/// Per tiled source: its tile count and hash (`MBTilesTiles`) match those recorded when the pack last
/// became whole; stored tiles and resources marked compressed inflate; vector tiles parse as protobuf
/// with named layers; every tile the region's plan (`StoredPlan`) needs is stored, maybe as "no content".
/// The calling thread reads batches in martin's order; `BatchPipeline` checks and hashes them on every
/// core, in a few batches' memory.
public final class PackVerification: Sendable {
    public struct SourceReport: Sendable {
        public var id: String
        public var urlTemplate: String
        public var tiles: Int
        public var hash: String
        /// The hash recorded when the pack last became whole; nil when none was.
        public var recorded: String?
        /// The export rule `recorded` was made under, when not the current one (`ExportRule`):
        /// compared with this pack's hash under that rule.
        public var recordedRule: Int?
    }

    public struct Report: Sendable {
        public var pack: String
        public var sources: [SourceReport]
        public var resources: Int
        /// Tiles the region's plan needs; nil when the plan cannot be made from stored documents.
        public var plannedTiles: Int?
        /// The pack's hash is still being computed in the background: no recorded hash is compared.
        public var hashPending: Bool
        /// The first `PackVerification.shownProblems`, one line each, naming the tile or resource.
        public var problems: [String]
        public var problemCount: Int

        public var isSound: Bool { problemCount == 0 }
    }

    public static let shownProblems = 20

    private let database: OfflineDatabase
    private let pack: Pack
    private let problems = ProblemList(keeping: PackVerification.shownProblems)
    private let done = LockedState(0)
    private let olderRuleHashes = LockedState([String: String]())

    public init(database: OfflineDatabase, pack: Pack) {
        self.database = database
        self.pack = pack
    }

    /// Runs every check; `progress(tilesDone, tilesTotal)` is called now and then from this thread.
    public func run(progress: (Int, Int) -> Void = { _, _ in }) throws -> Report {
        let total = try expectedTiles()
        let style = try PackStyle.load(pack, from: database)
        let pending = try database.hashesPending(of: pack.id)
        let recorded = pending ? [] : try database.recordedHashes(of: pack.id)
        var sources: [SourceReport] = []
        var present: [TileColumnSet: Set<UInt64>] = [:]
        var seen = Set<TileColumnSet>()
        // The walked tiles' places, for the plan's check only (a set of 500,000 cost a tenth of a verify).
        for source in style?.sources ?? [] {
            guard let columns = source.columns, let tiles = source.tiles, seen.insert(columns).inserted else { continue }
            var keys: Set<UInt64>? = plannedDefinition == nil ? nil : []
            let hash = try SourceWalk(database: database, problems: problems, done: done, checks: true)
                .run(source, vector: tiles.type == .vector, keys: &keys) { progress(done.withLock { $0 }, total) }
            if let keys { present[columns] = keys }
            let stored = recorded.first { $0.urlTemplate == columns.urlTemplate && $0.pixelRatio == columns.pixelRatio }
            let olderRule = stored.flatMap { $0.rule == ExportRule.current.rawValue ? nil : $0.rule }
            if let stored, try compared(stored, source, hash.hex) != stored.hash {
                let rule = olderRule.map { " under export rule \($0)" } ?? ""
                problems.add("source \(source.id): tiles hash to \(try compared(stored, source, hash.hex))\(rule), recorded \(stored.hash) (\(stored.tiles) tiles)")
            }
            sources.append(SourceReport(
                id: source.id, urlTemplate: columns.urlTemplate, tiles: hash.tiles, hash: hash.hex, recorded: stored?.hash,
                recordedRule: olderRule))
        }
        progress(done.withLock { $0 }, total)
        let resources = try checkResources()
        let planned = try checkPlan(present: present)
        let (shown, count) = problems.snapshot
        return Report(
            pack: pack.name, sources: sources, resources: resources, plannedTiles: planned, hashPending: pending,
            problems: shown, problemCount: count)
    }

    /// `current`, or for a hash `stored` under an older export rule, the hash under that rule (a walk
    /// of its own, needed once: the background hash replaces such hashes).
    private func compared(_ stored: RecordedHash, _ source: PackStyle.Source, _ current: String) throws -> String {
        guard stored.rule != ExportRule.current.rawValue else { return current }
        if let cached = olderRuleHashes.withLock({ $0[stored.urlTemplate] }) { return cached }
        let rule = ExportRule(rawValue: stored.rule) ?? .deflatedAgain
        let hash = (try? PackHash.compute(source, in: database, rule: rule))?.hash ?? "(no hash: a tile does not decode)"
        olderRuleHashes.withLock { $0[stored.urlTemplate] = hash }
        return hash
    }

    /// The pack's tile count as kept (for the progress bar), else as required.
    private func expectedTiles() throws -> Int {
        let progress = try database.progress(of: pack.id)
        return progress.counted ? progress.counts.tiles : progress.requiredTiles
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

    /// Checks every planned tile is stored; returns their count, nil when no plan can be made.
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
