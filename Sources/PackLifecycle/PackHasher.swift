import Basics
import FoundationEssentials
import PackStore
import StyleModel

/// Computes the hashes owed for `complete` packs (PendingHashes.swift) apart, so nobody waits for a read
/// of every tile: in a `BackgroundWorker` on the mount, on its own thread for a command (`settle`). A hash
/// under an older export rule is recomputed once confirmed; a tile that does not decode ends the request,
/// keeping the last hash; a hash whose request was renewed meanwhile is dropped.
public final class PackHasher: Sendable {
    private let database: OfflineDatabase
    private let hashed: @Sendable (RegionID) -> Void
    private let log: @Sendable (String) -> Void
    private let budget: SourceWalk.Budget
    private let worker = BackgroundWorker(name: "PackFS hasher")
    /// Packs whose older-rule hashes this hasher tried to confirm: once each, not at every wake.
    private let tried = LockedState(Set<RegionID>())

    /// A mount's: `hashed` runs after a pack's hashes were recorded (the mount then forgets its progress.json).
    public convenience init(database: OfflineDatabase, hashed: @escaping @Sendable (RegionID) -> Void = { _ in },
                            log: @escaping @Sendable (String) -> Void = PackHasher.standardError) {
        self.init(database: database, budget: .background, hashed: hashed, log: log)
    }

    private init(database: OfflineDatabase, budget: SourceWalk.Budget, hashed: @escaping @Sendable (RegionID) -> Void = { _ in },
                 log: @escaping @Sendable (String) -> Void = PackHasher.standardError) {
        self.database = database
        self.budget = budget
        self.hashed = hashed
        self.log = log
    }

    /// Looks for owed hashes soon, starting the thread the first time.
    public func wake() {
        guard !worker.wake({ [self] stopped in work(stopped: stopped) }) else { return }
        log("no thread for the background hash; owed hashes wait for the next wake or mount")
    }

    /// Stops between pages and waits for the thread: what is owed stays owed, for the next mount.
    public func stop() { worker.stop() }

    /// Computes every owed hash on the calling thread (`packfs download` and `refresh`, which the user waits for).
    public static func settle(_ database: OfflineDatabase) {
        PackHasher(database: database, budget: .command).work(stopped: { false })
    }

    /// What a hasher logs to unless given another log.
    @usableFromInline static let standardError: @Sendable (String) -> Void = { StandardError.write("packfs: \($0)\n") }

    /// One pass: every request owed, then every hash recorded under an older rule.
    private func work(stopped: @escaping @Sendable () -> Bool) {
        do {
            for (region, token) in try database.pendingHashes() where !stopped() { settle(region, token: token, stopped: stopped) }
            for region in try database.packsWithHashes(before: ExportRule.current.rawValue) where !stopped() {
                guard tried.withLock({ $0.insert(region).inserted }) else { continue }
                upgrade(region, stopped: stopped)
            }
        } catch {
            log("reading the owed hashes failed: \(error)")
        }
    }

    private func settle(_ region: RegionID, token: Int64, stopped: @escaping @Sendable () -> Bool) {
        do {
            let pack = try database.pack(id: region)
            let hashes = try Self.hashes(of: pack, in: database, budget: budget, cancelled: stopped)
            let now = Date()
            if try database.write({ try $0.recordHashes(hashes.map { $0.recorded(at: now) }, of: region, pending: token) }) {
                hashed(region)
            }
        } catch is SourceWalk.Cancelled {
            return
        } catch StoreError.regionNotFound {
            return
        } catch {
            log("pack \(region.rawValue): its hash cannot be made: \(error)")
            _ = try? database.write { try $0.endHashRequest(of: region, token: token) }
            hashed(region)
        }
    }

    /// A hash under an older rule is confirmed under it, then owed again under the current one. One
    /// not confirmed stays (`packfs verify` reports it).
    private func upgrade(_ region: RegionID, stopped: @escaping @Sendable () -> Bool) {
        do {
            let pack = try database.pack(id: region)
            guard let style = try PackStyle.load(pack, from: database) else { return }
            for old in try database.recordedHashes(of: region) where old.rule != ExportRule.current.rawValue {
                guard let rule = ExportRule(rawValue: old.rule),
                      let source = style.sources.first(where: { $0.columns?.urlTemplate == old.urlTemplate && $0.columns?.pixelRatio == old.pixelRatio }),
                      let again = try PackHash.compute(source, in: database, rule: rule, pageEnd: {
                          if stopped() { throw SourceWalk.Cancelled() }
                      })
                else { return }
                guard again.hash == old.hash else {
                    return log("pack \(pack.name): source \(source.id) hashes to \(again.hash) under rule \(old.rule), recorded \(old.hash); kept as recorded")
                }
            }
            let token = try database.write { try $0.requestHashes(of: region) }
            settle(region, token: token, stopped: stopped)
        } catch is SourceWalk.Cancelled {
            return
        } catch {
            log("pack \(region.rawValue): its hash under the current rule cannot be made: \(error)")
        }
    }

    struct Undecodable: Error, CustomStringConvertible {
        var problem: String
        var description: String { problem }
    }

    /// The hashes of `pack`, each tiled source once, in the style's order, under the current rule.
    static func hashes(of pack: Pack, in database: OfflineDatabase, budget: SourceWalk.Budget,
                       cancelled: @escaping () -> Bool) throws -> [PackHash.Source] {
        guard let style = try PackStyle.load(pack, from: database) else { return [] }
        var seen = Set<TileColumnSet>()
        var hashes: [PackHash.Source] = []
        for source in style.sources {
            guard let columns = source.columns, let tiles = source.tiles, seen.insert(columns).inserted else { continue }
            let problems = ProblemList(keeping: 1)
            var walk = SourceWalk(database: database, problems: problems, done: LockedState(0), checks: false)
            walk.budget = budget
            walk.cancelled = cancelled
            var keys: Set<UInt64>?
            let hash = try walk.run(source, vector: tiles.type == .vector, keys: &keys)
            if let problem = problems.snapshot.0.first { throw Undecodable(problem: problem) }
            hashes.append(PackHash.Source(id: source.id, columns: columns, hash: hash.hex, tiles: hash.tiles))
        }
        return hashes
    }
}
