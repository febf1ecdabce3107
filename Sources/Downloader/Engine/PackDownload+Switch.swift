import FoundationEssentials
import PackStore

/// A refresh never shows a mix (PackStore's Staging.swift): new content is staged while it runs,
/// and a run that reaches its end switches the pack to it in one transaction (`switchToStaged`),
/// then records the pack complete with its new hash (`finish`).
///
/// The hash, a full read of the pack (minutes for a country), stays out of the switch's
/// transaction, which would hold the writer that long: the switch drops the recorded hash, and the
/// transaction that records the pack `complete` records the new one. A kill between the two leaves
/// the pack `active` and its refresh pending; the next run finds every row current, sends no
/// request and records the hash. The recorded hash never disagrees with the tiles.
extension PackDownload {
    /// The resume point's plan while a refresh owes its pack the convergence to `fingerprint`
    /// (its switch makes it): a run resumed after a kill knows the members it must drop.
    static func owing(_ fingerprint: String) -> String { "owed " + fingerprint }

    /// The switch, at the end of a refresh that ran to its end. A failure ends the run in `error`
    /// with every staged row kept and the refresh pending, for a resume.
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
