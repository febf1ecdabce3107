import FoundationEssentials
import PackStore

/// A refresh never shows a mix (PackStore's Staging.swift): what it fetches with new content is
/// staged while it runs, and a run that reaches its end switches the pack to it in one
/// transaction (`switchToStaged`), then records the pack complete with its new hash (`finish`).
///
/// The hash is not in the switch's transaction: it is a full read of the pack (a gzip per vector
/// tile), minutes for a country, which would hold the writer (every other pack's batches, every
/// `rm`, `touch` and region file on the mount) that long; computed before the switch it would
/// need every reader of the style, TileJSON and tiles taught the staged rows. So the switch drops
/// the recorded hash (it no longer describes the tiles), the hash is computed from the switched
/// rows off the writer, and the transaction that records the pack `complete` records it and ends
/// the pending refresh. A kill between the two leaves the new pack `active`, without a hash, its
/// refresh pending: the next run finds every row current (the switch stamped them) and nothing
/// staged, sends no request and records the hash. The recorded hash is the old one, none, or
/// the new one: never one that disagrees with the tiles.
extension PackDownload {
    /// The resume point's plan while a refresh owes its pack the convergence to `fingerprint`
    /// (its switch makes it): a run resumed after a kill knows the members it must drop.
    static func owing(_ fingerprint: String) -> String { "owed " + fingerprint }

    /// The switch, at the end of a refresh that ran to its end (`plan` its plan). A failure
    /// stops the run in `error` with every staged row kept (the transaction rolled back) and the
    /// refresh pending, for a resume.
    func switchToStaged(_ plan: DownloadPlan) {
        guard let since = refreshSince else { return }
        do {
            let leaving: (tiles: [TileKey], resources: [String]) = convergenceOwed ? try members(notIn: plan) : ([], [])
            let fingerprint = plan.fingerprint(of: definition)
            let point = ledger.point.map { ResumePoint(plan: fingerprint, since: $0.since, position: $0.position) }
            let switched = try database.write(notBefore: since) { batch in
                let switched = try batch.switchStaged(of: region, since: since, leaving: leaving)
                if let point { try batch.setResumePoint(point, of: region) }
                return switched
            }
            ledger.rename(plan: fingerprint)
            convergenceOwed = false
            // The pack's rows changed under the writer's running counts.
            writer.recount()
            if !leaving.tiles.isEmpty || !leaving.resources.isEmpty { onMembersLeft?(leaving.tiles, leaving.resources) }
            if !switched.isEmpty { onSwitched?(switched) }
        } catch {
            stop(.failed(Self.writeFailure(error)))
        }
    }

    /// The content a refresh cut short staged for a style or TileJSON: the resumed run plans from
    /// it, as the first run did, without asking again.
    func stagedContent(of url: String) throws -> Data? {
        guard stagedBefore, let since = refreshSince else { return nil }
        return try database.stagedResource(url: url, of: region, since: since)?.decoded()
    }

    /// Which of `keys` a refresh cut short staged: answered already (nothing to look up unless
    /// this run goes on from one that staged).
    func stagedTiles(_ keys: [TileKey]) throws -> Set<TileKey> {
        guard stagedBefore, let since = refreshSince else { return [] }
        return try database.stagedTiles(keys, of: region, since: since)
    }

    func stagedResources(_ urls: [String]) throws -> Set<String> {
        guard stagedBefore, let since = refreshSince else { return [] }
        return try database.stagedResources(urls, of: region, since: since)
    }
}
