import Basics
import CCurl
import FoundationEssentials

/// Transfers that receive nothing.
///
/// A transfer silent for `quietAfter` is quiet: it stops counting against `concurrency`, and
/// another starts in its place, up to `slots` in all, so a server stalling some answers holds no
/// work up for long. A quiet transfer that receives again counts again from the next sweep.
///
/// One silent for `stallTimeout` after its request went out is abandoned (its connection closed,
/// nothing kept) and ends as a timeout, retried like any network failure.
extension TransferLoop {
    /// Runs when `nextSweep` is due; returns how many transfers stopped counting (turned quiet or
    /// were abandoned), so the loop fills their places at once.
    func sweepSilentTransfers() -> Int {
        let now = MonotonicClock.now()
        guard now >= nextSweep else { return 0 }
        let quietBefore = quiet
        var abandoned = 0
        // Look again within a quiet period even when no deadline is nearer: a quiet transfer may
        // have woken, a connecting one may have sent its request.
        var next = now + limits.quietAfter
        for slot in active.indices where active[slot] != nil {
            let transfer = transfers[slot]
            let silence = now - min(now, transfer.lastActivity)
            if transfer.requestSent, silence >= limits.stallAfter {
                abandon(slot)
                abandoned += 1
                continue
            }
            setQuiet(slot, silence >= limits.quietAfter)
            if transfer.requestSent { next = min(next, transfer.lastActivity + limits.stallAfter) }
            if silence < limits.quietAfter { next = min(next, transfer.lastActivity + limits.quietAfter) }
        }
        nextSweep = active.contains { $0 != nil } ? next : .max
        return abandoned + max(0, quiet - quietBefore)
    }

    private func abandon(_ slot: Int) {
        let seconds = cFormat("%g", limits.stallSeconds)
        transfers[slot].abandon("nothing received for \(seconds) s (stall timeout)")
        totals.stalls += 1
        // The attempt ends as a timeout: never a body to decode.
        _ = settle(slot: slot, code: CURLE_OPERATION_TIMEDOUT)
    }
}
